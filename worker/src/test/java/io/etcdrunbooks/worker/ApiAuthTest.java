package io.etcdrunbooks.worker;

import static io.etcdrunbooks.api.testing.TestTokens.ADMIN;
import static io.etcdrunbooks.api.testing.TestTokens.OPERATOR;
import static io.etcdrunbooks.api.testing.TestTokens.STAGING;
import static io.etcdrunbooks.api.testing.TestTokens.VIEWER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdrunbooks.api.testing.TestTokens;
import io.etcdrunbooks.testkit.RealEtcd;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowNotFoundException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every API call needs a token with the right role for the right cluster: refused calls get 401/403
 * with a message naming what is missing, and start nothing (checked against Temporal, not against
 * the API's memory).
 */
@RealEtcd
@Timeout(value = 5, unit = TimeUnit.MINUTES)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ApiAuthTest {

  /** Removed by JUnit after the class: the sandbox's etcd binaries and data take hundreds of MB. */
  @TempDir static Path classDir;

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String UPGRADE = "/api/v1/clusters/sandbox/upgrade";

  private ApiSandbox env;
  private WorkflowClient client;
  private String api;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @BeforeAll
  void start() throws Exception {
    env =
        ApiSandbox.start(
            classDir, "api-auth", "3.4.23", Map.of(), VIEWER, OPERATOR, ADMIN, STAGING);
    client = env.client;
    api = env.api;
  }

  @AfterAll
  void stop() {
    if (env != null) env.close();
  }

  @Test
  void callsWithoutAKnownTokenAre401AndStartNothing() throws Exception {
    String body = "{\"targetVersion\":\"3.5.16\",\"dryRun\":false}";
    assertRefused(post(UPGRADE, body, null), 401, "missing 'Authorization: Bearer <token>'");
    assertRefused(
        post(UPGRADE, body, "Bearer tok-not-a-token"), 401, "not one of runbooks.api.tokens-file");
    assertRefused(
        post(UPGRADE, body, "Basic " + OPERATOR.secret()),
        401,
        "missing 'Authorization: Bearer <token>'");
    assertRefused(
        post(UPGRADE, body, "Bearer " + TestTokens.sha256(OPERATOR.secret())), 401, "not one of");
    assertRefused(get("/api/v1/clusters/sandbox/status", null), 401, "missing");
    assertRefused(get("/api/v1/clusters", "Bearer "), 401, "Bearer");
    assertNoRunbook("change-sandbox");
  }

  @Test
  void aTokenWithoutTheRoleIs403NamingTheRoleNeeded() throws Exception {
    assertRefused(
        post(UPGRADE, "{\"targetVersion\":\"3.5.16\"}", VIEWER.bearer()),
        403,
        "role viewer",
        "needs operator");
    assertRefused(
        post(
            "/api/v1/clusters/sandbox/replace-member",
            "{\"failedMember\":\"m1\"}",
            VIEWER.bearer()),
        403,
        "needs operator");
    assertRefused(
        post(
            "/api/v1/clusters/sandbox/restore",
            "{\"acknowledgeDataLoss\":true}",
            OPERATOR.bearer()),
        403,
        "role operator",
        "needs admin");
    assertRefused(
        post("/api/v1/clusters/sandbox/rollback", "{\"toVersion\":\"3.4.23\"}", OPERATOR.bearer()),
        403,
        "needs admin");
    assertRefused(
        post("/api/v1/runbooks/change-sandbox/approve", "{}", VIEWER.bearer()),
        403,
        "needs operator");
    assertRefused(
        post("/api/v1/runbooks/change-sandbox/pause", "{}", VIEWER.bearer()),
        403,
        "needs operator");
    assertNoRunbook("change-sandbox");
  }

  @Test
  void aTokenForOtherClustersIs403EvenForReads() throws Exception {
    assertRefused(
        post(UPGRADE, "{\"targetVersion\":\"3.5.16\"}", STAGING.bearer()),
        403,
        "may act on clusters [staging-*]",
        "'sandbox'");
    assertRefused(get("/api/v1/clusters/sandbox/status", STAGING.bearer()), 403, "'sandbox'");
    assertRefused(
        post("/api/v1/runbooks/change-sandbox/approve", "{}", STAGING.bearer()),
        403,
        "cannot be told");
    assertThat(JSON.readTree(get("/api/v1/clusters", STAGING.bearer()).body()))
        .as("clusters it may see")
        .isEmpty();
    assertThat(JSON.readTree(get("/api/v1/clusters", VIEWER.bearer()).body()).get(0).asText())
        .isEqualTo("sandbox");
    assertNoRunbook("change-sandbox");
  }

  @Test
  void theRightRoleGetsThrough() throws Exception {
    HttpResponse<String> status = get("/api/v1/clusters/sandbox/status", VIEWER.bearer());
    assertThat(status.statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(status.body()).path("members")).hasSize(3);
    // past authorization, the request itself is checked: an admin's restore without the
    // acknowledgement is a 400
    HttpResponse<String> restore =
        post("/api/v1/clusters/sandbox/restore", "{\"backupId\":\"latest\"}", ADMIN.bearer());
    assertThat(restore.statusCode()).isEqualTo(400);
    assertThat(restore.body()).contains("acknowledgeDataLoss must be true");
    assertNoRunbook("change-sandbox");
    // the Alertmanager webhook keeps its own token: an API token is not asked for there
    HttpResponse<String> alerts = post("/api/v1/alerts/alertmanager", "{}", ADMIN.bearer());
    assertThat(alerts.statusCode()).isEqualTo(401);
    assertThat(alerts.body()).contains("runbooks.alerts.token-sha256");
  }

  private void assertRefused(HttpResponse<String> response, int status, String... why)
      throws Exception {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
    JsonNode body = JSON.readTree(response.body());
    assertThat(body.path("message").asText())
        .contains(why)
        .doesNotContain(OPERATOR.secret(), VIEWER.secret());
    if (status == 401)
      assertThat(response.headers().firstValue("WWW-Authenticate")).contains("Bearer");
  }

  private void assertNoRunbook(String workflowId) {
    assertThatThrownBy(() -> client.newUntypedWorkflowStub(workflowId).describe())
        .isInstanceOf(WorkflowNotFoundException.class);
  }

  private HttpResponse<String> get(String path, String authorization) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(api + path)).GET();
    if (authorization != null) request.header("Authorization", authorization);
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> post(String path, String body, String authorization)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(api + path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (authorization != null) request.header("Authorization", authorization);
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
