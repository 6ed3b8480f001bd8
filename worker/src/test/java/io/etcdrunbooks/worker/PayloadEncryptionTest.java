package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import io.etcdrunbooks.api.testing.TestTokens;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.testkit.Sandbox;
import io.etcdrunbooks.testkit.SandboxSpec;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.common.v1.Payloads;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.failure.v1.Failure;
import io.temporal.api.history.v1.History;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.workflowservice.v1.GetWorkflowExecutionHistoryRequest;
import io.temporal.api.workflowservice.v1.GetWorkflowExecutionHistoryResponse;
import io.temporal.client.WorkflowClient;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * With a codec keys file, what a runbook stores in Temporal's history is ciphertext: read straight
 * from Temporal, no payload names the cluster, its members, their URLs or the versions. The API
 * still shows the runbook decoded, and the codec endpoint decodes the history for a viewer token
 * and refuses a call without a known token.
 */
@RealEtcd
@Timeout(value = 5, unit = TimeUnit.MINUTES)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PayloadEncryptionTest {

  /** Removed by JUnit after the class: the sandbox's etcd binaries and data take hundreds of MB. */
  @TempDir static Path classDir;

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String CLUSTER = "vault-east";
  private static final String FROM = "3.4.23";
  private static final String TARGET = "3.5.30";
  private static final TestTokens.Token VIEWER = TestTokens.Token.of("ui-reader", "viewer");
  private static final TestTokens.Token OPERATOR =
      TestTokens.Token.of("codec-operator", "operator");
  private static final TestTokens.Token STAGING =
      TestTokens.Token.of("staging-reader", "viewer", "staging-*");
  private static final String UI_ORIGIN = "https://temporal-ui.example:8233";
  private static final String DECODE = "/api/v1/codec/decode";
  private static final String ENCODE = "/api/v1/codec/encode";

  /**
   * What the dry run's input, activity results, result and memo hold in plaintext (checked on the
   * decoded history).
   */
  private static final List<String> PLAINTEXT =
      List.of(CLUSTER, "\"m1\"", "\"m2\"", "\"m3\"", FROM, TARGET, OPERATOR.name());

  private Sandbox sandbox;
  private ApplicationContext context;
  private WorkflowClient client;
  private String api;
  private String workflowId;
  private JsonNode view;
  private History history;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @BeforeAll
  void startADryRunOnEncryptedTemporal() throws Exception {
    sandbox =
        Sandbox.create(
            new SandboxSpec(classDir.resolve("sandbox"), CLUSTER, 3, FROM),
            SandboxRunbooks.releases());
    Path tokens =
        TestTokens.write(sandbox.dir().resolve("api-tokens.yaml"), VIEWER, OPERATOR, STAGING);
    context =
        Main.start(
            List.of("worker", "api"),
            Map.of(
                "runbooks.api.tokens-file", tokens.toString(),
                "runbooks.codec.keys-file",
                    TestCodecKeys.write(sandbox.dir().resolve("codec-keys.yaml"), "k1").toString(),
                "runbooks.codec.cors-origins", UI_ORIGIN,
                "runbooks.inventory", sandbox.inventoryFile().toString(),
                "runbooks.task-queue", "etcd-runbooks-codec-test",
                "temporal.address", "",
                "temporal.embedded-port", freePort(),
                "micronaut.server.port", freePort()));
    api = context.getBean(EmbeddedServer.class).getURL().toString();
    client = context.getBean(WorkflowClient.class);

    HttpResponse<String> started =
        post(
            "/api/v1/clusters/" + CLUSTER + "/upgrade",
            "{\"targetVersion\":\"" + TARGET + "\",\"dryRun\":true}",
            OPERATOR.bearer(),
            null);
    assertThat(started.statusCode()).as(started.body()).isEqualTo(202);
    workflowId = JSON.readTree(started.body()).path("workflowId").asText();
    view = awaitFinished(workflowId);
    history = rawHistory(workflowId);
  }

  @AfterAll
  void stop() {
    if (context != null) context.close();
    if (sandbox != null) sandbox.close();
  }

  @Test
  void theHistoryReadStraightFromTemporalHoldsOnlyCiphertext() {
    assertThat(view.path("status").asText()).as(view.toString()).isEqualTo("COMPLETED");
    List<Payload> payloads = payloadsOf(history);
    assertThat(payloads)
        .as("workflow input, memo, activity inputs and results, workflow result")
        .hasSizeGreaterThanOrEqualTo(6);
    for (Payload p : payloads) {
      assertThat(p.getMetadataOrThrow("encoding").toStringUtf8()).isEqualTo("binary/encrypted");
      assertThat(p.getMetadataOrThrow("encryption-key-id").toStringUtf8()).isEqualTo("k1");
      assertThat(latin1(p.toByteString())).doesNotContain(PLAINTEXT);
    }
    HistoryEvent started = history.getEvents(0);
    assertThat(started.getWorkflowExecutionStartedEventAttributes().getMemo().getFieldsMap())
        .containsKey("startedBy");
    assertThat(started.getWorkflowExecutionStartedEventAttributes().getInput().getPayloadsCount())
        .isEqualTo(1);
    assertThat(history.getEventsList())
        .anySatisfy(
            e ->
                assertThat(
                        e.getActivityTaskScheduledEventAttributes().getInput().getPayloadsCount())
                    .isPositive());
    assertThat(history.getEventsList())
        .anySatisfy(
            e ->
                assertThat(
                        e.getActivityTaskCompletedEventAttributes().getResult().getPayloadsCount())
                    .isPositive());
    assertThat(history.getEventsList())
        .anySatisfy(
            e ->
                assertThat(
                        e.getWorkflowExecutionCompletedEventAttributes()
                            .getResult()
                            .getPayloadsCount())
                    .isPositive());
    // outside payloads only the workflow id names the cluster; nothing else of the inventory (not
    // even a member URL) shows
    assertThat(latin1(history.toByteString()))
        .doesNotContain("127.0.0.1", FROM, TARGET, "\"m1\"", OPERATOR.name());
    assertThat(failureMessagesOf(history))
        .allSatisfy(m -> assertThat(m).doesNotContain(CLUSTER, "127.0.0.1"));
  }

  @Test
  void theApiStillShowsTheRunbookDecoded() {
    assertThat(view.path("progress").path("cluster").asText()).isEqualTo(CLUSTER);
    assertThat(view.path("progress").path("phase").asText()).isEqualTo("DONE");
    assertThat(view.path("result").path("plan").path("targetVersion").asText()).isEqualTo(TARGET);
    assertThat(view.path("result").path("cluster").asText()).isEqualTo(CLUSTER);
  }

  @Test
  void theCodecEndpointDecodesTheHistoryForAViewer() throws Exception {
    String body = payloadsJson(payloadsOf(history));
    HttpResponse<String> decoded = post(DECODE, body, VIEWER.bearer(), null);
    assertThat(decoded.statusCode()).as(decoded.body()).isEqualTo(200);
    assertThat(decoded.headers().firstValue("Content-Type"))
        .hasValueSatisfying(t -> assertThat(t).startsWith("application/json"));

    Payloads.Builder plain = Payloads.newBuilder();
    JsonFormat.parser().merge(decoded.body(), plain);
    assertThat(plain.getPayloadsCount()).isEqualTo(payloadsOf(history).size());
    StringBuilder text = new StringBuilder();
    for (Payload p : plain.getPayloadsList()) {
      assertThat(p.getMetadataOrThrow("encoding").toStringUtf8()).isNotEqualTo("binary/encrypted");
      text.append(p.getData().toStringUtf8()).append('\n');
    }
    assertThat(text.toString())
        .as("the plaintext the history must not show, so the check above can fail")
        .contains(PLAINTEXT);

    Payload memo =
        history
            .getEvents(0)
            .getWorkflowExecutionStartedEventAttributes()
            .getMemo()
            .getFieldsOrThrow("startedBy");
    HttpResponse<String> memoDecoded =
        post(DECODE, payloadsJson(List.of(memo)), VIEWER.bearer(), null);
    assertThat(memoDecoded.body()).contains(base64("\"" + OPERATOR.name() + "\""));
  }

  @Test
  void theCodecEndpointRefusesCallersWithoutAKnownTokenForEveryCluster() throws Exception {
    String body = payloadsJson(payloadsOf(history).subList(0, 3));
    for (String authorization :
        new String[] {
          null, "Bearer tok-not-a-token", "Bearer " + TestTokens.sha256(VIEWER.secret())
        }) {
      HttpResponse<String> refused = post(DECODE, body, authorization, null);
      assertThat(refused.statusCode()).as(String.valueOf(authorization)).isEqualTo(401);
      assertThat(refused.headers().firstValue("WWW-Authenticate")).contains("Bearer");
      assertThat(refused.body()).doesNotContain(PLAINTEXT).doesNotContain(VIEWER.secret());
    }
    HttpResponse<String> limited = post(DECODE, body, STAGING.bearer(), null);
    assertThat(limited.statusCode()).isEqualTo(403);
    assertThat(limited.body())
        .contains("needs a token for every cluster")
        .doesNotContain(PLAINTEXT);
  }

  @Test
  void encodeThenDecodeGivesThePayloadBack() throws Exception {
    Payload plain =
        Payload.newBuilder()
            .putMetadata("encoding", ByteString.copyFromUtf8("json/plain"))
            .setData(ByteString.copyFromUtf8("{\"cluster\":\"" + CLUSTER + "\"}"))
            .build();
    HttpResponse<String> encoded =
        post(ENCODE, payloadsJson(List.of(plain)), VIEWER.bearer(), null);
    assertThat(encoded.statusCode()).as(encoded.body()).isEqualTo(200);
    assertThat(encoded.body())
        .contains(base64("binary/encrypted"), base64("k1"))
        .doesNotContain(base64("json/plain"));

    HttpResponse<String> decoded = post(DECODE, encoded.body(), VIEWER.bearer(), null);
    Payloads.Builder back = Payloads.newBuilder();
    JsonFormat.parser().merge(decoded.body(), back);
    assertThat(back.getPayloadsList()).containsExactly(plain);

    // a payload that is not encrypted (a workflow started from the Web UI with plain JSON) passes
    // through decode
    HttpResponse<String> passedThrough =
        post(DECODE, payloadsJson(List.of(plain)), VIEWER.bearer(), null);
    assertThat(passedThrough.body()).isEqualTo(payloadsJson(List.of(plain)));

    HttpResponse<String> notPayloads =
        post(DECODE, "{\"payloads\":\"" + CLUSTER + "\"}", VIEWER.bearer(), null);
    assertThat(notPayloads.statusCode()).isEqualTo(400);
    assertThat(notPayloads.body()).contains("not Temporal Payloads").doesNotContain(CLUSTER);
  }

  @Test
  void theWebUiOriginMayCallFromTheBrowser() throws Exception {
    HttpResponse<String> preflight = preflight(UI_ORIGIN);
    assertThat(preflight.statusCode()).as(preflight.body()).isBetween(200, 204);
    assertThat(preflight.headers().allValues("Access-Control-Allow-Origin"))
        .containsExactly(UI_ORIGIN);
    assertThat(preflight.headers().firstValue("Access-Control-Allow-Headers"))
        .hasValueSatisfying(
            h ->
                assertThat(h)
                    .containsIgnoringCase("authorization")
                    .containsIgnoringCase("x-namespace")
                    .containsIgnoringCase("content-type"));
    assertThat(preflight.headers().firstValue("Access-Control-Allow-Methods"))
        .hasValueSatisfying(m -> assertThat(m).contains("POST"));

    HttpResponse<String> other = preflight("https://evil.example");
    assertThat(other.statusCode()).isEqualTo(403);
    assertThat(other.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();

    String body = payloadsJson(payloadsOf(history).subList(0, 1));
    HttpResponse<String> decoded = post(DECODE, body, VIEWER.bearer(), UI_ORIGIN);
    assertThat(decoded.statusCode()).as(decoded.headers() + " " + decoded.body()).isEqualTo(200);
    assertThat(decoded.headers().allValues("Access-Control-Allow-Origin"))
        .containsExactly(UI_ORIGIN);
    HttpResponse<String> anonymous = post(DECODE, body, null, UI_ORIGIN);
    assertThat(anonymous.statusCode()).isEqualTo(401);
    assertThat(anonymous.headers().allValues("Access-Control-Allow-Origin"))
        .as("the UI can read why")
        .containsExactly(UI_ORIGIN);
  }

  /**
   * Every payload of the history but the details of version markers (Workflow.getVersion), which
   * Temporal's SDK writes with its own standard converter, not the client's codec: they hold only a
   * change id and a number ({@link #versionMarkersHoldOnlyChangeIdsAndNumbers} checks that).
   */
  private static List<Payload> payloadsOf(History history) {
    List<Payload> payloads = new ArrayList<>();
    history.getEventsList().stream()
        .filter(e -> !isVersionMarker(e))
        .forEach(e -> walk(e, payloads, new ArrayList<>()));
    return payloads;
  }

  private static boolean isVersionMarker(HistoryEvent e) {
    return e.hasMarkerRecordedEventAttributes()
        && e.getMarkerRecordedEventAttributes().getMarkerName().equals("Version");
  }

  @Test
  void versionMarkersHoldOnlyChangeIdsAndNumbers() {
    List<HistoryEvent> markers =
        history.getEventsList().stream().filter(PayloadEncryptionTest::isVersionMarker).toList();
    assertThat(markers)
        .as("a dry-run upgrade passes the change-id and host-access markers")
        .isNotEmpty();
    for (HistoryEvent marker : markers) {
      List<Payload> details = new ArrayList<>();
      walk(marker, details, new ArrayList<>());
      for (Payload p : details) {
        assertThat(p.getData().toStringUtf8())
            .as("a version marker's detail")
            .matches("\"[a-z0-9-]+\"|-?\\d+|\\{.*\\}|true|false");
        assertThat(latin1(p.toByteString())).doesNotContain(PLAINTEXT).doesNotContain("127.0.0.1");
      }
    }
  }

  private static List<String> failureMessagesOf(History history) {
    List<String> messages = new ArrayList<>();
    history.getEventsList().forEach(e -> walk(e, new ArrayList<>(), messages));
    return messages;
  }

  /**
   * Every Payload anywhere in an event (inputs, results, memo, headers, failure details), found by
   * reflection.
   */
  private static void walk(Message message, List<Payload> payloads, List<String> failureMessages) {
    if (message instanceof Payload p) {
      payloads.add(p);
      return;
    }
    if (message instanceof Failure f)
      failureMessages.add(f.getMessage() + "\n" + f.getStackTrace());
    for (Map.Entry<FieldDescriptor, Object> field : message.getAllFields().entrySet()) {
      if (field.getKey().getJavaType() != FieldDescriptor.JavaType.MESSAGE) continue;
      if (field.getKey().isRepeated()) {
        for (Object element : (List<?>) field.getValue())
          walk((Message) element, payloads, failureMessages);
      } else {
        walk((Message) field.getValue(), payloads, failureMessages);
      }
    }
  }

  private History rawHistory(String id) {
    History.Builder all = History.newBuilder();
    ByteString page = ByteString.EMPTY;
    do {
      GetWorkflowExecutionHistoryResponse response =
          client
              .getWorkflowServiceStubs()
              .blockingStub()
              .getWorkflowExecutionHistory(
                  GetWorkflowExecutionHistoryRequest.newBuilder()
                      .setNamespace(client.getOptions().getNamespace())
                      .setExecution(WorkflowExecution.newBuilder().setWorkflowId(id))
                      .setNextPageToken(page)
                      .build());
      all.addAllEvents(response.getHistory().getEventsList());
      page = response.getNextPageToken();
    } while (!page.isEmpty());
    return all.build();
  }

  private JsonNode awaitFinished(String id) throws Exception {
    Instant deadline = Instant.now().plus(Duration.ofMinutes(3));
    JsonNode runbook;
    do {
      TimeUnit.MILLISECONDS.sleep(300);
      HttpResponse<String> response =
          send(
              HttpRequest.newBuilder(URI.create(api + "/api/v1/runbooks/" + id))
                  .header("Authorization", VIEWER.bearer())
                  .GET());
      assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
      runbook = JSON.readTree(response.body());
    } while ("RUNNING".equals(runbook.path("status").asText()) && Instant.now().isBefore(deadline));
    return runbook;
  }

  private static String payloadsJson(List<Payload> payloads) throws Exception {
    return JsonFormat.printer()
        .omittingInsignificantWhitespace()
        .print(Payloads.newBuilder().addAllPayloads(payloads).build());
  }

  private HttpResponse<String> preflight(String origin) throws Exception {
    return send(
        HttpRequest.newBuilder(URI.create(api + DECODE))
            .method("OPTIONS", HttpRequest.BodyPublishers.noBody())
            .header("Origin", origin)
            .header("Access-Control-Request-Method", "POST")
            .header("Access-Control-Request-Headers", "authorization,content-type,x-namespace"));
  }

  /**
   * A POST as the Temporal Web UI sends it: JSON, the namespace, the token when "pass access token"
   * is on.
   */
  private HttpResponse<String> post(String path, String body, String authorization, String origin)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(api + path))
            .header("Content-Type", "application/json")
            .header("X-Namespace", "default")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (authorization != null) request.header("Authorization", authorization);
    if (origin != null) request.header("Origin", origin);
    return send(request);
  }

  private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static String latin1(ByteString bytes) {
    return bytes.toString(StandardCharsets.ISO_8859_1);
  }

  private static String base64(String text) {
    return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
  }

  private static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0, 0, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
