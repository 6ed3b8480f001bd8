package io.etcdrunbooks.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdrunbooks.api.testing.ApiHarness;
import io.etcdrunbooks.api.testing.RawHttp.Answer;
import io.etcdrunbooks.api.testing.TestTokens;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.upgrade.UpgradeClusterWorkflow;
import io.etcdrunbooks.workflows.upgrade.UpgradeRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A runbook's page answers from what Temporal stores, also while no worker runs; the cluster's list
 * shows every runbook of the cluster, also those started from the Temporal Web UI or CLI under any
 * id and without the API's memo.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RunbookReadingTest {

  @TempDir static Path dir;
  private static final ObjectMapper JSON = new ObjectMapper();

  private ApiHarness api;

  @BeforeAll
  void start() throws Exception {
    api = ApiHarness.start(dir, Map.of());
  }

  @AfterAll
  void stop() {
    if (api != null) api.close();
  }

  @Test
  void aRunbookNoWorkerPollsForIsShownWithinSecondsSayingSo() throws Exception {
    String id = "ui-started-" + UUID.randomUUID();
    start(id, "nobody-polls-this-queue", "sandbox");
    long began = System.nanoTime();
    Answer page = api.http.send("GET", "/api/v1/runbooks/" + id, TestTokens.VIEWER.bearer(), null);
    Duration took = Duration.ofNanos(System.nanoTime() - began);
    assertThat(page.status()).as(page.body()).isEqualTo(200);
    assertThat(took)
        .as("answered without a worker")
        .isLessThan(Duration.ofSeconds(RunbookReader.QUERY_SECONDS + 3));
    JsonNode view = JSON.readTree(page.body());
    assertThat(view.path("status").asText()).isEqualTo("RUNNING");
    assertThat(view.path("progress").isNull() || view.path("progress").isMissingNode())
        .as("no live progress")
        .isTrue();
    assertThat(view.path("worker").asText())
        .contains("no worker answered", "nobody-polls-this-queue");
  }

  @Test
  void aRunbookAWorkerRunsIsShownWithItsLiveProgress() throws Exception {
    String id = "ui-started-" + UUID.randomUUID();
    start(id, ApiHarness.TASK_QUEUE, "sandbox");
    api.client
        .newWorkflowStub(UpgradeClusterWorkflow.class, id)
        .progress(); // waits until the worker has run it once
    JsonNode view =
        JSON.readTree(
            api.http
                .send("GET", "/api/v1/runbooks/" + id, TestTokens.VIEWER.bearer(), null)
                .body());
    assertThat(view.path("progress").path("cluster").asText()).isEqualTo("sandbox");
    assertThat(view.path("worker").asText("")).as("no worker note").isEmpty();
  }

  @Test
  void theClusterListShowsRunbooksStartedElsewhereUnderAnyIdAndOnlyThoseOfTheCluster()
      throws Exception {
    String mine = "web-ui-" + UUID.randomUUID();
    String other = "web-ui-" + UUID.randomUUID();
    start(mine, ApiHarness.TASK_QUEUE, "sandbox");
    start(other, ApiHarness.TASK_QUEUE, "staging-1");
    Answer list =
        api.http.send("GET", "/api/v1/clusters/sandbox/runbooks", TestTokens.VIEWER.bearer(), null);
    assertThat(list.status()).as(list.body()).isEqualTo(200);
    List<String> ids = new ArrayList<>();
    JSON.readTree(list.body()).forEach(run -> ids.add(run.path("workflowId").asText()));
    assertThat(ids).contains(mine).doesNotContain(other);
    Answer staging =
        api.http.send(
            "GET", "/api/v1/clusters/staging-1/runbooks", TestTokens.STAGING.bearer(), null);
    assertThat(staging.body()).contains(other).doesNotContain(mine);
  }

  /** As the Temporal Web UI would: any id, no memo. */
  private void start(String id, String taskQueue, String cluster) {
    UpgradeClusterWorkflow upgrade =
        api.client.newWorkflowStub(
            UpgradeClusterWorkflow.class,
            WorkflowOptions.newBuilder().setWorkflowId(id).setTaskQueue(taskQueue).build());
    WorkflowClient.start(
        upgrade::upgrade,
        UpgradeRequest.to(cluster, "3.5.30", RunbookOptions.defaults().withApproval()));
  }
}
