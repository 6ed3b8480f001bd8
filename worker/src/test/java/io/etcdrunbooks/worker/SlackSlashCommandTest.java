package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdrunbooks.api.testing.FakeSlack;
import io.etcdrunbooks.api.testing.FakeSlack.Posted;
import io.etcdrunbooks.testkit.EtcdSandboxExtension;
import io.etcdrunbooks.testkit.Ports;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.workflows.replacemember.ReplaceMemberWorkflow;
import io.etcdrunbooks.workflows.upgrade.UpgradeClusterWorkflow;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionDescription;
import io.temporal.client.WorkflowNotFoundException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Slack slash command of a worker+api process over a real 3-member sandbox: requests are signed
 * here as Slack signs them (HMAC-SHA256 computed in this test, not by the code under test), the
 * response URL is a {@link FakeSlack} on 127.0.0.1, and whether a runbook started is asked of
 * Temporal. Refused requests come first, so that the last test's upgrade is the only runbook that
 * ever runs.
 */
@RealEtcd
@Timeout(value = 5, unit = TimeUnit.MINUTES)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SlackSlashCommandTest {

  /** Up before {@link #start}, closed and removed after {@link #stop}. */
  @RegisterExtension
  static final EtcdSandboxExtension etcd =
      EtcdSandboxExtension.builder().members(3).version("3.4.23").build();

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String OPERATOR = "U0OPERATOR1";
  private static final String VIEWER = "U0VIEWER01";
  private static final String STAGING_OPERATOR = "U0STAGING1";
  private static final String STRANGER = "U0STRANGER";
  private static final String UPGRADE_ID = UpgradeClusterWorkflow.workflowId("sandbox");

  private final String secret = "slack-secret-" + UUID.randomUUID();
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private FakeSlack responseUrls;
  private ApplicationContext context;
  private WorkflowClient client;
  private String slack;

  @BeforeAll
  void start() throws Exception {
    responseUrls = FakeSlack.start();

    Path secretFile = etcd.sandbox().dir().resolve("slack-signing-secret");
    Files.createFile(
        secretFile,
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(secretFile, secret + "\n");

    Map<String, Object> properties = new HashMap<>();
    properties.put("runbooks.inventory", etcd.inventoryFile().toString());
    properties.put("runbooks.task-queue", "etcd-runbooks-slack-test");
    properties.put("runbooks.slack.signing-secret-file", secretFile.toString());
    properties.put("runbooks.slack.response-url-prefix", responseUrls.base());
    properties.put("runbooks.slack.progress-interval-seconds", 1);
    properties.put("runbooks.slack.users." + OPERATOR + ".role", "operator");
    properties.put("runbooks.slack.users." + VIEWER + ".role", "viewer");
    properties.put("runbooks.slack.users." + STAGING_OPERATOR + ".role", "operator");
    properties.put("runbooks.slack.users." + STAGING_OPERATOR + ".clusters", "staging-*");
    properties.put("temporal.address", "");
    properties.put("temporal.embedded-port", Ports.free());
    properties.put("micronaut.server.port", Ports.free());
    context = Main.start(List.of("worker", "api"), properties);
    slack = context.getBean(EmbeddedServer.class).getURL() + "/slack/commands";
    client = context.getBean(WorkflowClient.class);
  }

  @AfterAll
  void stop() {
    if (context != null) context.close();
    if (responseUrls != null) responseUrls.close();
  }

  @Test
  @Order(1)
  void forgedStaleAndMalformedRequestsAre4xxNamingTheCheckAndStartNothing() throws Exception {
    byte[] body = form(OPERATOR, "upgrade sandbox 3.5.16", "/commands/T1/forged");
    String now = String.valueOf(Instant.now().getEpochSecond());
    String signature = sign(secret, now, body);

    assertRefused(send(body, null, null), 401, "missing X-Slack-Request-Timestamp");
    assertRefused(send(body, now, null), 401, "missing X-Slack-Signature");
    assertRefused(
        send(body, now, sign("another-app-" + secret, now, body)),
        401,
        "X-Slack-Signature does not match");
    assertRefused(send(body, now, "v0=" + "ab".repeat(32)), 401, "does not match");
    assertRefused(
        send(body, now, "v0=" + signature.substring(3, 40)),
        401,
        "not 'v0=' followed by 64 hex digits");
    String stale = String.valueOf(Instant.now().minusSeconds(400).getEpochSecond());
    assertRefused(
        send(body, stale, sign(secret, stale, body)), 401, "s old", "more than 5 minutes");
    String ahead = String.valueOf(Instant.now().plusSeconds(400).getEpochSecond());
    assertRefused(send(body, ahead, sign(secret, ahead, body)), 401, "in the future");
    assertRefused(send(body, "yesterday", signature), 401, "not a number of seconds");
    // a signature of another timestamp: the timestamp is part of what is signed
    assertRefused(
        send(body, String.valueOf(Long.parseLong(now) - 1), signature), 401, "does not match");
    // signed correctly, but not what Slack sends
    assertRefused(
        send(body, now, signature, "application/json"),
        415,
        "Content-Type must be application/x-www-form-urlencoded");
    byte[] large =
        form(OPERATOR, "upgrade sandbox 3.5.16 " + "x".repeat(9000), "/commands/T1/forged");
    assertRefused(send(large, now, sign(secret, now, large)), 413, "at most 8192");
    byte[] empty = new byte[0];
    assertRefused(send(empty, now, sign(secret, now, empty)), 400, "no user_id");

    assertNoRunbook(UPGRADE_ID);
    assertThat(responseUrls.within(1, any -> true))
        .as("nothing is posted for a refused request")
        .isNull();
  }

  @Test
  @Order(2)
  void usersWithoutTheRoleOrTheClusterAreToldWhatIsMissingAndStartNothing() throws Exception {
    assertEphemeral(
        command(VIEWER, "upgrade sandbox 3.5.16"),
        "you have role viewer",
        "upgrade needs operator",
        "Nothing was started");
    assertEphemeral(command(VIEWER, "replace sandbox m2"), "needs operator");
    assertEphemeral(command(VIEWER, "approve " + UPGRADE_ID), "needs operator");
    assertEphemeral(
        command(STRANGER, "upgrade sandbox 3.5.16"),
        "Slack user " + STRANGER + " has no role",
        "runbooks.slack.users");
    assertEphemeral(command(STRANGER, "status sandbox"), "has no role");
    assertEphemeral(
        command(STAGING_OPERATOR, "upgrade sandbox 3.5.16"),
        "may act on clusters [staging-*], not on *sandbox*");
    assertEphemeral(command(STAGING_OPERATOR, "approve " + UPGRADE_ID), "cannot be told");
    // allowed, but not a runbook that can start
    assertEphemeral(
        command(OPERATOR, "upgrade prod-9 3.5.16"), "no cluster `prod-9` in the inventory");
    assertEphemeral(
        command(OPERATOR, "upgrade sandbox 3.5"), "targetVersion must look like 3.5.30");
    assertEphemeral(command(OPERATOR, "replace sandbox m9"), "has no member 'm9'", "[m1, m2, m3]");
    assertEphemeral(
        command(OPERATOR, "approve change-sandbox"), "no runbook `change-sandbox` is running");
    // Slack's escaping: a bare <cluster> would be read as a link
    assertEphemeral(
        command(OPERATOR, "upgrade sandbox"),
        "usage: upgrade &lt;cluster&gt; &lt;version&gt;",
        "/etcd status &lt;cluster&gt;");
    assertEphemeral(
        command(STRANGER, "help"), "/etcd upgrade &lt;cluster&gt; &lt;version&gt;", "no role yet");

    assertNoRunbook(UPGRADE_ID);
    assertNoRunbook(ReplaceMemberWorkflow.workflowId("sandbox"));
    assertThat(responseUrls.within(1, any -> true))
        .as("nothing is posted for a refused command")
        .isNull();
  }

  @Test
  @Order(3)
  void statusAnswersWithTheMembers() throws Exception {
    String text = statusText(VIEWER);
    assertThat(text)
        .contains(
            "*sandbox*",
            "leader m",
            "m1: 3.4.23, healthy",
            "m2: 3.4.23, healthy",
            "m3: 3.4.23, healthy");
  }

  @Test
  @Order(4)
  void aValidlySignedUpgradeStartsTheRunbookAndTheSameBodyWithAFlippedByteDoesNot()
      throws Exception {
    byte[] body = form(OPERATOR, "upgrade sandbox 3.5.16", "/commands/T1/upgrade");
    String now = String.valueOf(Instant.now().getEpochSecond());
    String signature = sign(secret, now, body);

    byte[] flipped = body.clone();
    int lastDigit = new String(body, StandardCharsets.US_ASCII).indexOf("3.5.16") + 5;
    flipped[lastDigit] ^=
        0x01; // '6' -> '7': still a command that would start an upgrade, to 3.5.17
    assertThat(new String(flipped, StandardCharsets.US_ASCII)).contains("3.5.17");
    assertRefused(send(flipped, now, signature), 401, "does not match");
    assertNoRunbook(UPGRADE_ID);

    HttpResponse<String> accepted = send(body, now, signature);
    assertThat(accepted.statusCode()).as(accepted.body()).isEqualTo(200);
    JsonNode reply = JSON.readTree(accepted.body());
    assertThat(reply.path("response_type").asText()).isEqualTo("in_channel");
    assertThat(reply.path("text").asText())
        .contains(
            "<@" + OPERATOR + "> started the upgrade of *sandbox* to 3.5.16",
            "`" + UPGRADE_ID + "`",
            "Progress follows here");
    WorkflowExecutionDescription started = client.newUntypedWorkflowStub(UPGRADE_ID).describe();
    assertThat(started.getWorkflowType()).isEqualTo("UpgradeCluster");
    assertThat(started.getMemo("startedBy", String.class))
        .isEqualTo("slack:ops-" + OPERATOR.toLowerCase() + "/" + OPERATOR);

    client.newUntypedWorkflowStub(UPGRADE_ID).getResult(4, TimeUnit.MINUTES, Map.class);
    assertThat(client.newUntypedWorkflowStub(UPGRADE_ID).describe().getStatus())
        .isEqualTo(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED);

    List<Posted> messages = new ArrayList<>();
    while (messages.isEmpty() || !messages.get(messages.size() - 1).text().contains("completed")) {
      Posted next = responseUrls.within(60, any -> true);
      assertThat(next).as("a message on the response URL; got so far: %s", messages).isNotNull();
      messages.add(next);
    }
    assertThat(messages)
        .allSatisfy(
            m -> {
              assertThat(m.path()).isEqualTo("/commands/T1/upgrade");
              assertThat(m.body().path("response_type").asText()).isEqualTo("in_channel");
              assertThat(m.text())
                  .startsWith(
                      messages.indexOf(m) == messages.size() - 1
                          ? ":white_check_mark: `" + UPGRADE_ID + "`"
                          : "`" + UPGRADE_ID + "`: phase ");
            });
    assertThat(messages)
        .as("Slack takes at most 5 messages on a response URL")
        .hasSizeBetween(2, 5);
    assertThat(String.join("\n", messages.stream().map(Posted::text).toList()))
        .contains("phase UPGRADE");
    assertThat(messages.get(messages.size() - 1).text())
        .contains("completed", "m1=3.5.16", "m2=3.5.16", "m3=3.5.16");
    assertThat(responseUrls.within(3, any -> true)).as("nothing after the final message").isNull();

    assertThat(statusText(VIEWER))
        .contains("m1: 3.5.16, healthy", "m2: 3.5.16, healthy", "m3: 3.5.16, healthy");
  }

  /**
   * The status a user gets: in the answer, or on the response URL when reading took longer than
   * Slack waits.
   */
  private String statusText(String user) throws Exception {
    HttpResponse<String> response = command(user, "status sandbox");
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    JsonNode reply = JSON.readTree(response.body());
    assertThat(reply.path("response_type").asText()).isEqualTo("ephemeral");
    String text = reply.path("text").asText();
    if (!text.contains("it follows in a moment")) return text;
    Posted later = responseUrls.within(30, any -> true);
    assertThat(later).as("the status posted to the response URL").isNotNull();
    return later.text();
  }

  private void assertRefused(HttpResponse<String> response, int status, String... why)
      throws Exception {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
    JsonNode body = JSON.readTree(response.body());
    assertThat(body.path("error").asText()).contains(why).doesNotContain(secret);
    assertThat(response.body()).doesNotContain(secret);
  }

  private static void assertEphemeral(HttpResponse<String> response, String... text)
      throws Exception {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    JsonNode reply = JSON.readTree(response.body());
    assertThat(reply.path("response_type").asText()).as(response.body()).isEqualTo("ephemeral");
    assertThat(reply.path("text").asText()).contains(text);
  }

  private void assertNoRunbook(String workflowId) {
    assertThatThrownBy(() -> client.newUntypedWorkflowStub(workflowId).describe())
        .isInstanceOf(WorkflowNotFoundException.class);
  }

  /** A correctly signed command from {@code user}, with a response URL on the test's server. */
  private HttpResponse<String> command(String user, String text) throws Exception {
    byte[] body = form(user, text, "/commands/T1/" + UUID.randomUUID());
    String now = String.valueOf(Instant.now().getEpochSecond());
    return send(body, now, sign(secret, now, body));
  }

  /** The body Slack sends for a slash command (its fields in Slack's order). */
  private byte[] form(String user, String text, String responsePath) {
    String responseUrl = responseUrls.base() + responsePath.substring(1);
    Map<String, String> fields = new java.util.LinkedHashMap<>();
    fields.put("token", "deprecated-verification-token");
    fields.put("team_id", "T1");
    fields.put("team_domain", "example");
    fields.put("channel_id", "C1");
    fields.put("channel_name", "etcd-ops");
    fields.put("user_id", user);
    fields.put("user_name", "ops-" + user.toLowerCase());
    fields.put("command", "/etcd");
    fields.put("text", text);
    fields.put("api_app_id", "A1");
    fields.put("response_url", responseUrl);
    fields.put("trigger_id", "13345224609.738474920.8088930838d88f008e0");
    StringBuilder body = new StringBuilder();
    fields.forEach(
        (k, v) ->
            body.append(body.length() == 0 ? "" : "&")
                .append(k)
                .append('=')
                .append(URLEncoder.encode(v, StandardCharsets.UTF_8)));
    return body.toString().getBytes(StandardCharsets.US_ASCII);
  }

  private HttpResponse<String> send(byte[] body, String timestamp, String signature)
      throws Exception {
    return send(body, timestamp, signature, "application/x-www-form-urlencoded");
  }

  private HttpResponse<String> send(
      byte[] body, String timestamp, String signature, String contentType) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(slack))
            .header("Content-Type", contentType)
            .timeout(Duration.ofSeconds(10))
            .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    if (timestamp != null) request.header("X-Slack-Request-Timestamp", timestamp);
    if (signature != null) request.header("X-Slack-Signature", signature);
    long started = System.nanoTime();
    HttpResponse<String> response =
        http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    assertThat(Duration.ofNanos(System.nanoTime() - started))
        .as("answered within Slack's 3 s")
        .isLessThan(Duration.ofSeconds(3));
    return response;
  }

  /** Slack's signature, computed here independently of the code under test. */
  private static String sign(String secret, String timestamp, byte[] body) throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
    mac.update(("v0:" + timestamp + ":").getBytes(StandardCharsets.UTF_8));
    return "v0=" + HexFormat.of().formatHex(mac.doFinal(body));
  }
}
