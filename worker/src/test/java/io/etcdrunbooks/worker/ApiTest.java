package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdrunbooks.api.testing.TestTokens;
import io.etcdrunbooks.testkit.RealEtcd;
import io.micronaut.runtime.server.EmbeddedServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The HTTP API of a worker+api process (embedded Temporal) over a real sandbox. */
@RealEtcd
@Timeout(value = 5, unit = TimeUnit.MINUTES)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ApiTest {

  /** Removed by JUnit after the class: the sandbox's etcd binaries and data take hundreds of MB. */
  @TempDir static Path classDir;

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final TestTokens.Token ADMIN = TestTokens.Token.of("admin", "admin");

  private ApiSandbox env;
  private String api;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @BeforeAll
  void start() throws Exception {
    env = ApiSandbox.start(classDir, "api-test", "3.4.23", Map.of(), ADMIN);
    assertThat(env.context.getBean(EmbeddedServer.class).getHost()).isEqualTo("127.0.0.1");
    api = env.api;
  }

  @AfterAll
  void stop() {
    if (env != null) env.close();
  }

  @Test
  @Order(1)
  void liveStatusListsEveryMemberWithVersionAndLeader() throws Exception {
    JsonNode status = get("/api/v1/clusters/sandbox/status").body;
    assertThat(status.path("members")).hasSize(3);
    assertThat(status.path("members").findValuesAsText("serverVersion")).containsOnly("3.4.23");
    assertThat(status.path("leaderName").asText()).isIn("m1", "m2", "m3");
    assertThat(status.path("clusterVersion").asText()).isEqualTo("3.4.0");
  }

  @Test
  @Order(2)
  void aDryRunStartedThroughTheApiReturnsThePlanAndItsProgress() throws Exception {
    Answer started =
        post("/api/v1/clusters/sandbox/upgrade", "{\"targetVersion\":\"3.5.30\",\"dryRun\":true}");
    assertThat(started.status).isEqualTo(202);
    String id = started.body.path("workflowId").asText();
    assertThat(id).startsWith("change-sandbox-dry-run-");

    JsonNode view = awaitFinished(id);
    assertThat(view.path("status").asText()).isEqualTo("COMPLETED");
    assertThat(view.path("result").path("plan").path("steps").findValuesAsText("toVersion"))
        .containsExactly("3.5.30");
    assertThat(view.path("progress").path("phase").asText()).isEqualTo("DONE");
    assertThat(view.path("progress").path("completed").findValuesAsText("name"))
        .contains("discover", "consistency");
    long startedAt =
        view.path("progress").path("completed").get(0).path("startedAtMillis").asLong();
    assertThat(startedAt)
        .as("the embedded Temporal keeps wall-clock time (no time skipping)")
        .isBetween(System.currentTimeMillis() - 120_000, System.currentTimeMillis());
  }

  @Test
  @Order(3)
  void badRequestsAreRefusedWithAClearMessage() throws Exception {
    Answer unknown = post("/api/v1/clusters/nope/upgrade", "{\"targetVersion\":\"3.5.30\"}");
    assertThat(unknown.status).isEqualTo(404);
    assertThat(unknown.body.path("message").asText()).contains("no cluster 'nope'", "[sandbox]");

    Answer badVersion = post("/api/v1/clusters/sandbox/upgrade", "{\"targetVersion\":\"latest\"}");
    assertThat(badVersion.status).isEqualTo(400);
    assertThat(badVersion.body.path("message").asText())
        .contains("targetVersion must look like 3.5.30");

    assertThat(get("/api/v1/runbooks/upgrade-does-not-exist").status).isEqualTo(404);

    Answer unacknowledgedRestore =
        post("/api/v1/clusters/sandbox/restore", "{\"backupId\":\"latest\"}");
    assertThat(unacknowledgedRestore.status).isEqualTo(400);
    assertThat(unacknowledgedRestore.body.path("message").asText())
        .contains("acknowledgeDataLoss must be true");
    assertThat(get("/api/v1/runbooks/restore-sandbox").status)
        .as("no restore was started")
        .isEqualTo(404);

    Answer badRollback = post("/api/v1/clusters/sandbox/rollback", "{\"toVersion\":\"3.4\"}");
    assertThat(badRollback.status).isEqualTo(400);
    assertThat(badRollback.body.path("message").asText())
        .contains("toVersion must look like 3.4.23");
  }

  @Test
  @Order(4)
  void aRollbackOfAClusterWithNothingToRollBackCompletesWithoutTouchingIt() throws Exception {
    Answer started = post("/api/v1/clusters/sandbox/rollback", "{}");
    assertThat(started.status).isEqualTo(202);
    JsonNode view = awaitFinished(started.body.path("workflowId").asText());
    assertThat(view.path("status").asText()).isEqualTo("COMPLETED");
    assertThat(view.path("result").path("toVersion").asText()).isEqualTo("3.4.23");
    assertThat(view.path("result").path("membersToRollBack")).isEmpty();
  }

  @Test
  @Order(5)
  void aSecondUpgradeOfABusyClusterIsRefusedWithTheRunningOnesId() throws Exception {
    Answer first = post("/api/v1/clusters/sandbox/upgrade", "{\"targetVersion\":\"3.5.16\"}");
    assertThat(first.status).isEqualTo(202);
    post("/api/v1/runbooks/change-sandbox/pause", "{}");
    Answer second = post("/api/v1/clusters/sandbox/upgrade", "{\"targetVersion\":\"3.5.30\"}");
    assertThat(second.status).isEqualTo(409);
    assertThat(second.body.path("workflowId").asText()).isEqualTo("change-sandbox");
    assertThat(second.body.path("message").asText()).contains("already running", "change-sandbox");

    post("/api/v1/runbooks/change-sandbox/resume", "{}");
    assertThat(awaitFinished("change-sandbox").path("status").asText()).isEqualTo("COMPLETED");
  }

  private JsonNode awaitFinished(String id) throws Exception {
    Instant deadline = Instant.now().plus(Duration.ofMinutes(3));
    JsonNode view;
    do {
      TimeUnit.MILLISECONDS.sleep(300);
      view = get("/api/v1/runbooks/" + id).body;
    } while ("RUNNING".equals(view.path("status").asText()) && Instant.now().isBefore(deadline));
    return view;
  }

  private record Answer(int status, JsonNode body) {}

  private Answer get(String path) throws Exception {
    return send(
        HttpRequest.newBuilder(URI.create(api + path))
            .header("Authorization", ADMIN.bearer())
            .GET()
            .build());
  }

  private Answer post(String path, String body) throws Exception {
    return send(
        HttpRequest.newBuilder(URI.create(api + path))
            .header("Content-Type", "application/json")
            .header("Authorization", ADMIN.bearer())
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build());
  }

  private Answer send(HttpRequest request) throws Exception {
    HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
    String body = response.body();
    return new Answer(
        response.statusCode(),
        body == null || body.isBlank() ? JSON.nullNode() : JSON.readTree(body));
  }
}
