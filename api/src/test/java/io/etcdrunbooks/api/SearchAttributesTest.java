package io.etcdrunbooks.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdrunbooks.api.testing.ApiHarness;
import io.etcdrunbooks.api.testing.RawHttp.Answer;
import io.etcdrunbooks.api.testing.TestTokens;
import io.etcdrunbooks.workflows.common.RunbookSearchAttributes;
import io.etcdrunbooks.workflows.recover.RecoverQuorumWorkflow;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.common.SearchAttributes;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * runbooks.search-attributes.enabled: the API starts runbooks with them and lists a cluster's
 * runbooks by them, falling back to the list-open and list-closed calls on the test server, which
 * has no list queries; disabled, it starts runbooks without them.
 */
class SearchAttributesTest {

  private static final String START = "/api/v1/clusters/sandbox/recover-quorum";
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  @Test
  void enabledARunbookStartsWithItsClusterRunbookStarterAndPhaseAndTheListStillShowsIt()
      throws Exception {
    try (ApiHarness api =
        ApiHarness.start(dir, Map.of("runbooks.search-attributes.enabled", true))) {
      RunbookSearchAttributes.ALL.forEach(
          key ->
              api.temporal.registerSearchAttribute(
                  key.getName(), IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD));
      start(api);

      SearchAttributes attributes = attributes(api);
      assertThat(attributes.get(RunbookSearchAttributes.CLUSTER)).isEqualTo("sandbox");
      assertThat(attributes.get(RunbookSearchAttributes.RUNBOOK))
          .isEqualTo(RecoverQuorumWorkflow.TYPE);
      assertThat(attributes.get(RunbookSearchAttributes.STARTED_BY)).isEqualTo("sre-lead");
      // set at the start; the fake runbook upserts AWAITING_APPROVAL once it reaches its gate
      assertThat(attributes.get(RunbookSearchAttributes.PHASE))
          .isIn("STARTING", "AWAITING_APPROVAL");
      assertThat(attributes.containsKey(RunbookSearchAttributes.FLEET)).isFalse();

      JsonNode listed = list(api);
      assertThat(listed.path("workflowId").asText()).isEqualTo("change-sandbox");
      assertThat(listed.path("phase").asText()).isIn("STARTING", "AWAITING_APPROVAL");
    }
  }

  @Test
  void enabledButNotRegisteredTheStartIsRefusedNamingTheRegistrationAndStartsNothing()
      throws Exception {
    try (ApiHarness api =
        ApiHarness.start(dir, Map.of("runbooks.search-attributes.enabled", true))) {
      Answer refused =
          api.http.send("POST", START, TestTokens.ADMIN.bearer(), "{\"acknowledgeDataLoss\":true}");

      assertThat(refused.status()).as(refused.body()).isEqualTo(503);
      assertThat(refused.body())
          .contains(
              "search attributes",
              "EtcdCluster",
              "runbooks.search-attributes.enabled",
              "docs/configuration.md");
      assertThat(list(api, 0).size()).isZero();
    }
  }

  @Test
  void disabledARunbookStartsWithoutThem() throws Exception {
    try (ApiHarness api = ApiHarness.start(dir, Map.of())) {
      start(api);

      SearchAttributes attributes = attributes(api);
      RunbookSearchAttributes.ALL.forEach(key -> assertThat(attributes.containsKey(key)).isFalse());
      assertThat(list(api).path("phase").asText()).isEmpty();
    }
  }

  @Test
  void theListQueryQuotesTheClusterSoAQuoteInItStaysPartOfTheValue() {
    String query =
        RunbookList.query(
            "prod-1' OR EtcdCluster != '",
            Instant.parse("2026-11-20T10:00:00.123Z"),
            List.of("B", "A"));
    assertThat(query)
        .isEqualTo(
            "StartTime > '2026-11-20T10:00:00Z' AND WorkflowType IN ('A', 'B') AND (EtcdCluster ="
                + " 'prod-1\\' OR EtcdCluster != \\'' OR EtcdCluster IS NULL)");
    assertThat(io.etcdrunbooks.runtime.visibility.RunbookVisibility.quoted("a\\'b"))
        .isEqualTo("'a\\\\\\'b'");
  }

  @Test
  void theApprovalsQueryAsksForRunningRunbooksWaitingForApprovalOrWithoutAPhase() {
    assertThat(RunbookList.awaitingApprovalQuery(List.of("B", "A")))
        .isEqualTo(
            "ExecutionStatus = 'Running' AND WorkflowType IN ('A', 'B') AND (EtcdRunbookPhase ="
                + " 'AWAITING_APPROVAL' OR EtcdRunbookPhase IS NULL)");
  }

  private static void start(ApiHarness api) throws Exception {
    Answer started =
        api.http.send("POST", START, TestTokens.ADMIN.bearer(), "{\"acknowledgeDataLoss\":true}");
    assertThat(started.status()).as(started.body()).isEqualTo(202);
  }

  private static SearchAttributes attributes(ApiHarness api) {
    return api.client
        .newUntypedWorkflowStub("change-sandbox")
        .describe()
        .getTypedSearchAttributes();
  }

  private static JsonNode list(ApiHarness api) throws Exception {
    return list(api, 1).get(0);
  }

  private static JsonNode list(ApiHarness api, int expected) throws Exception {
    Answer list =
        api.http.send("GET", "/api/v1/clusters/sandbox/runbooks", TestTokens.VIEWER.bearer(), null);
    assertThat(list.status()).as(list.body()).isEqualTo(200);
    JsonNode runs = JSON.readTree(list.body());
    assertThat(runs.size()).as(list.body()).isEqualTo(expected);
    return runs;
  }
}
