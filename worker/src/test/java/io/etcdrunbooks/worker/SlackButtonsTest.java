package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.etcdrunbooks.api.RunbookStarter;
import io.etcdrunbooks.api.slack.SlackProgressFollower;
import io.etcdrunbooks.api.testing.FakeSlack;
import io.etcdrunbooks.api.testing.FakeSlack.Posted;
import io.etcdrunbooks.testkit.EtcdSandboxExtension;
import io.etcdrunbooks.testkit.Ports;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.workflows.RunbookCatalog;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.common.RunbookWorkflow;
import io.etcdrunbooks.workflows.upgrade.UpgradeClusterWorkflow;
import io.etcdrunbooks.workflows.upgrade.UpgradeRequest;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;
import io.temporal.client.WorkflowClient;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Approve button of a worker+api process over a real 3-member sandbox: an UpgradeCluster that
 * waits for approval is followed into a Slack thread (Slack's Web API and the response URLs are one
 * HTTP server on 127.0.0.1), the clicks on the button it posts are signed here as Slack signs them,
 * and whether the runbook went on is asked of Temporal.
 */
@RealEtcd
@Timeout(value = 5, unit = TimeUnit.MINUTES)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SlackButtonsTest {

  @RegisterExtension
  static final EtcdSandboxExtension etcd =
      EtcdSandboxExtension.builder().members(3).version("3.4.23").build();

  private static final String OPERATOR = "U0OPERATOR1";
  private static final String VIEWER = "U0VIEWER01";
  private static final String CHAT = "/api/chat.postMessage";
  private static final String UPGRADE_ID = UpgradeClusterWorkflow.workflowId("sandbox");

  private final String secret = "slack-secret-" + UUID.randomUUID();
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final List<Posted> thread = new ArrayList<>();
  private FakeSlack slack;
  private ApplicationContext context;
  private WorkflowClient client;

  @BeforeAll
  void start() throws Exception {
    slack = FakeSlack.start();

    Map<String, Object> properties = new HashMap<>();
    properties.put("runbooks.inventory", etcd.inventoryFile().toString());
    properties.put("runbooks.task-queue", "etcd-runbooks-slack-buttons-test");
    properties.put("runbooks.slack.signing-secret-file", secretFile("signing-secret", secret));
    properties.put("runbooks.slack.bot-token-file", secretFile("bot-token", "xoxb-test"));
    properties.put("runbooks.slack.api-url", base() + "api/");
    properties.put("runbooks.slack.response-url-prefix", base());
    properties.put("runbooks.slack.progress-interval-seconds", 1);
    properties.put("runbooks.slack.users." + OPERATOR + ".role", "operator");
    properties.put("runbooks.slack.users." + VIEWER + ".role", "viewer");
    properties.put("temporal.address", "");
    properties.put("temporal.embedded-port", Ports.free());
    properties.put("micronaut.server.port", Ports.free());
    context = Main.start(List.of("worker", "api"), properties);
    client = context.getBean(WorkflowClient.class);
  }

  @AfterAll
  void stop() {
    if (context != null) context.close();
    if (slack != null) slack.close();
  }

  @Test
  void onlyAnOperatorsSignedFreshClickApprovesTheWaitingUpgradeWhichThenGoesOnInItsThread()
      throws Exception {
    RunbookStarter.Started started =
        context
            .getBean(RunbookStarter.class)
            .start(
                RunbookCatalog.UPGRADE,
                UpgradeRequest.to("sandbox", "3.5.16", RunbookOptions.defaults().withApproval()),
                "slack-buttons-test");
    context
        .getBean(SlackProgressFollower.class)
        .follow(UPGRADE_ID, URI.create(base() + "commands/T1/upgrade"), "C1");

    Posted approval = null;
    while (approval == null) {
      Posted next = awaitOn(CHAT);
      if (next.body().has("blocks")) approval = next;
    }
    assertThat(thread.get(0).inThread()).as("the first message is in the channel").isFalse();
    assertThat(thread.subList(1, thread.size())).allMatch(Posted::inThread);
    assertThat(approval.text()).contains("phase AWAITING_APPROVAL");
    JsonNode approve = approval.body().path("blocks").get(1).path("elements").get(0);
    assertThat(approve.path("action_id").asText()).isEqualTo("runbook-approve");
    assertThat(approve.path("value").asText()).isEqualTo(UPGRADE_ID + "/" + started.runId());
    byte[] click = click(OPERATOR, approve.path("value").asText(), "/actions/T1/operator");

    String now = String.valueOf(Instant.now().getEpochSecond());
    assertThat(send(click, now, sign("another-app-" + secret, now, click)).statusCode())
        .isEqualTo(401);
    String stale = String.valueOf(Instant.now().minusSeconds(400).getEpochSecond());
    HttpResponse<String> replayed = send(click, stale, sign(secret, stale, click));
    assertThat(replayed.statusCode()).isEqualTo(401);
    assertThat(replayed.body()).contains("more than 5 minutes").doesNotContain(secret);
    byte[] byViewer = click(VIEWER, approve.path("value").asText(), "/actions/T1/viewer");
    assertThat(send(byViewer, now, sign(secret, now, byViewer)).statusCode()).isEqualTo(200);
    Posted refused = awaitOn("/actions/T1/viewer");
    assertThat(refused.body().path("response_type").asText()).isEqualTo("ephemeral");
    assertThat(refused.text()).contains("you have role viewer; Approve needs operator");
    assertThat(phase()).isEqualTo(Phase.AWAITING_APPROVAL);
    assertThat(controls()).doesNotContain("approve");

    assertThat(send(click, now, sign(secret, now, click)).statusCode()).isEqualTo(200);
    Posted approved = awaitOn("/actions/T1/operator");
    assertThat(approved.body().path("replace_original").asBoolean()).isTrue();
    assertThat(approved.text()).contains("<@" + OPERATOR + "> approved `" + UPGRADE_ID + "`");
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!controls().contains("approve by") && System.nanoTime() < until) Thread.sleep(200);
    assertThat(controls()).contains("approve by slack:ops-u0operator1/" + OPERATOR);

    client.newUntypedWorkflowStub(UPGRADE_ID).getResult(4, TimeUnit.MINUTES, Map.class);
    String now2 = String.valueOf(Instant.now().getEpochSecond());
    assertThat(send(click, now2, sign(secret, now2, click)).statusCode()).isEqualTo(200);
    Posted late = awaitOn("/actions/T1/operator");
    assertThat(late.text()).contains("has ended (completed)", "Nothing changed");

    while (!thread.get(thread.size() - 1).text().contains(":white_check_mark:")) awaitOn(CHAT);
    Posted last = thread.get(thread.size() - 1);
    assertThat(last.inThread()).isTrue();
    assertThat(last.body().path("thread_ts").asText())
        .isEqualTo(thread.get(1).body().path("thread_ts").asText())
        .isEqualTo("1700000000.000001");
    assertThat(last.text()).contains("m1=3.5.16", "m2=3.5.16", "m3=3.5.16");
  }

  private Phase phase() {
    return client.newWorkflowStub(UpgradeClusterWorkflow.class, UPGRADE_ID).progress().phase();
  }

  private String controls() {
    Object controls =
        client
            .newUntypedWorkflowStub(UPGRADE_ID)
            .describe()
            .getMemo(RunbookWorkflow.CONTROLS_MEMO, List.class);
    return String.valueOf(controls);
  }

  /** The next request to {@code path}; the messages to the thread on the way are kept. */
  private Posted awaitOn(String path) throws InterruptedException {
    while (true) {
      Posted next = slack.within(60, any -> true);
      assertThat(next).as("a request to %s; the thread so far: %s", path, thread).isNotNull();
      if (next.path().equals(CHAT)) thread.add(next);
      if (next.path().equals(path)) return next;
    }
  }

  /** The form Slack sends for a click on a button with {@code value}. */
  private byte[] click(String user, String value, String responsePath) {
    String payload =
        """
        {"type":"block_actions","token":"deprecated-verification-token",
         "user":{"id":"%s","username":"ops-%s","name":"ops-%s","team_id":"T1"},
         "api_app_id":"A1","team":{"id":"T1","domain":"example"},
         "container":{"type":"message","message_ts":"1700000000.000002","channel_id":"C1"},
         "channel":{"id":"C1","name":"etcd-ops"},
         "response_url":"%s",
         "actions":[{"action_id":"runbook-approve","block_id":"runbook-approval","type":"button",
                     "text":{"type":"plain_text","text":"Approve"},"value":"%s",
                     "action_ts":"1700000001.000200"}]}
        """
            .formatted(
                user,
                user.toLowerCase(),
                user.toLowerCase(),
                base() + responsePath.substring(1),
                value);
    return ("payload=" + URLEncoder.encode(payload, StandardCharsets.UTF_8))
        .getBytes(StandardCharsets.US_ASCII);
  }

  private HttpResponse<String> send(byte[] body, String timestamp, String signature)
      throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(
                URI.create(context.getBean(EmbeddedServer.class).getURL() + "/slack/interactions"))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .header("X-Slack-Request-Timestamp", timestamp)
            .header("X-Slack-Signature", signature)
            .timeout(Duration.ofSeconds(10))
            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
            .build();
    long started = System.nanoTime();
    HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
    assertThat(Duration.ofNanos(System.nanoTime() - started))
        .as("answered within Slack's 3 s")
        .isLessThan(Duration.ofSeconds(3));
    return response;
  }

  private String secretFile(String name, String content) throws Exception {
    Path file = etcd.sandbox().dir().resolve(name);
    Files.createFile(
        file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(file, content + "\n");
    return file.toString();
  }

  private String base() {
    return slack.base();
  }

  /** Slack's signature, computed here independently of the code under test. */
  private static String sign(String secret, String timestamp, byte[] body) throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
    mac.update(("v0:" + timestamp + ":").getBytes(StandardCharsets.UTF_8));
    return "v0=" + HexFormat.of().formatHex(mac.doFinal(body));
  }
}
