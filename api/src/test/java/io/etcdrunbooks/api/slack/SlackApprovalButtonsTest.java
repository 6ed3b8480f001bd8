package io.etcdrunbooks.api.slack;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdrunbooks.api.testing.ApiHarness;
import io.etcdrunbooks.api.testing.FakeSlack;
import io.etcdrunbooks.workflows.common.ApprovalSigning;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.recover.RecoverQuorumRequest;
import io.etcdrunbooks.workflows.recover.RecoverQuorumWorkflow;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
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
 * Clicks on Approve and Cancel at {@code POST /slack/interactions}, against runbooks that wait for
 * approval in Temporal's test environment: signed here as Slack signs them, answered 200 at once,
 * their outcome posted to a response URL served on 127.0.0.1.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SlackApprovalButtonsTest {

  @TempDir static Path dir;

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SECRET = "slack-secret-" + UUID.randomUUID();
  private static final String OPERATOR = "U0OPERATOR1";
  private static final String ADMIN = "U0ADMIN001";
  private static final String VIEWER = "U0VIEWER01";
  private static final String STAGING_OPERATOR = "U0STAGING1";
  private static final String STRANGER = "U0STRANGER";

  private FakeSlack slack;
  private ApiHarness api;
  private SlackClicks clicks;

  @BeforeAll
  void start() throws Exception {
    slack = FakeSlack.start();
    Path secretFile = dir.resolve("signing-secret");
    Files.createFile(
        secretFile,
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(secretFile, SECRET + "\n");
    api =
        ApiHarness.start(
            dir,
            Map.of(
                "runbooks.slack.signing-secret-file",
                secretFile.toString(),
                "runbooks.slack.response-url-prefix",
                responseUrlPrefix(),
                "runbooks.slack.users." + OPERATOR + ".role",
                "operator",
                "runbooks.slack.users." + ADMIN + ".role",
                "admin",
                "runbooks.slack.users." + VIEWER + ".role",
                "viewer",
                "runbooks.slack.users." + STAGING_OPERATOR + ".role",
                "operator",
                "runbooks.slack.users." + STAGING_OPERATOR + ".clusters",
                "staging-*"));
    clicks = new SlackClicks(api.server.getPort(), SECRET, responseUrlPrefix());
  }

  @AfterAll
  void stop() {
    if (api != null) api.close();
    if (slack != null) slack.close();
  }

  @Test
  void anOperatorsClickApprovesTheRunItWasPostedForAndReplacesTheButtons() throws Exception {
    SlackButtons.Target run = startUpgrade("click-approve");

    HttpResponse<String> answer = click(OPERATOR, SlackButtons.Action.APPROVE, run);

    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    JsonNode outcome = next();
    assertThat(outcome.path("response_type").asText()).isEqualTo("in_channel");
    assertThat(outcome.path("replace_original").asBoolean()).isTrue();
    assertThat(outcome.path("text").asText())
        .contains("<@" + OPERATOR + "> approved `click-approve`");
    api.client
        .newUntypedWorkflowStub("click-approve")
        .getResult(30, TimeUnit.SECONDS, Object.class);
    assertThat(api.controls("click-approve"))
        .endsWith(" approve by slack:ops-u0operator1/" + OPERATOR);

    click(OPERATOR, SlackButtons.Action.APPROVE, run);
    assertEphemeral(next(), "has ended (completed)", "Nothing changed");
  }

  @Test
  void clicksFromAViewerAStrangerAnotherClustersUserOrForAnotherRunChangeNothing()
      throws Exception {
    SlackButtons.Target run = startUpgrade("click-refused");

    click(VIEWER, SlackButtons.Action.APPROVE, run);
    assertEphemeral(next(), "you have role viewer; Approve needs operator", "Nothing changed");
    click(VIEWER, SlackButtons.Action.CANCEL, run);
    assertEphemeral(next(), "Cancel needs operator");
    click(STRANGER, SlackButtons.Action.APPROVE, run);
    assertEphemeral(next(), "Slack user " + STRANGER + " has no role", "runbooks.slack.users");
    click(STAGING_OPERATOR, SlackButtons.Action.APPROVE, run);
    assertEphemeral(next(), "may act on clusters [staging-*], not on *sandbox*");
    click(
        OPERATOR,
        SlackButtons.Action.APPROVE,
        new SlackButtons.Target(run.workflowId(), UUID.randomUUID().toString()));
    assertEphemeral(next(), "the run of `click-refused` this button was posted for is gone");

    assertThat(api.controls("click-refused")).isEmpty();
    assertThat(status("click-refused"))
        .isEqualTo(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING);
  }

  @Test
  void forgedStaleAndUnreadableClicksAreRefusedBeforeThePayloadIsRead() throws Exception {
    SlackButtons.Target run = startUpgrade("click-forged");
    byte[] body = body(OPERATOR, SlackButtons.Action.APPROVE, run);
    String now = String.valueOf(Instant.now().getEpochSecond());
    String stale = String.valueOf(Instant.now().minusSeconds(400).getEpochSecond());

    assertRefused(send(body, now, sign("another-app", now, body)), 401, "does not match");
    assertRefused(send(body, stale, sign(SECRET, stale, body)), 401, "s old");
    assertRefused(send(body, now, null), 401, "missing X-Slack-Signature");
    byte[] noPayload = "team_id=T1".getBytes(StandardCharsets.US_ASCII);
    assertRefused(send(noPayload, now, sign(SECRET, now, noPayload)), 400, "no payload");

    assertThat(slack.within(1, any -> true)).as("nothing posted for a refused click").isNull();
    assertThat(api.controls("click-forged")).isEmpty();
  }

  @Test
  void onlyAnAdminApprovesRecoverQuorumByButton() throws Exception {
    RecoverQuorumWorkflow recover =
        api.client.newWorkflowStub(RecoverQuorumWorkflow.class, options("click-recover"));
    WorkflowExecution started =
        WorkflowClient.start(
            recover::recover,
            RecoverQuorumRequest.of("sandbox", RunbookOptions.defaults()).acknowledgingDataLoss());
    SlackButtons.Target run = new SlackButtons.Target("click-recover", started.getRunId());

    click(OPERATOR, SlackButtons.Action.APPROVE, run);
    assertEphemeral(next(), "Not approved: only an admin approves RecoverQuorum");
    assertThat(api.controls("click-recover")).isEmpty();

    click(ADMIN, SlackButtons.Action.APPROVE, run);
    assertThat(next().path("text").asText()).contains("<@" + ADMIN + "> approved");
  }

  @Test
  void anApprovalTheRunbookRefusesIsAnsweredWithItsReason() throws Exception {
    // the worker checks tokens with another key than the API signs with (key files that differ)
    api.workerSigning.set(
        ApprovalSigning.withKey(
            "the worker's key file holds another key".repeat(2).getBytes(StandardCharsets.UTF_8)));
    try {
      RecoverQuorumWorkflow recover =
          api.client.newWorkflowStub(RecoverQuorumWorkflow.class, options("click-other-key"));
      WorkflowExecution started =
          WorkflowClient.start(
              recover::recover,
              RecoverQuorumRequest.of("sandbox", RunbookOptions.defaults())
                  .acknowledgingDataLoss());
      SlackButtons.Target run = new SlackButtons.Target("click-other-key", started.getRunId());
      awaitAwaitingApproval("click-other-key");

      click(ADMIN, SlackButtons.Action.APPROVE, run);

      assertEphemeral(
          next(),
          "Not approved: the token's signature does not match this runbook, plan, approver and"
              + " role",
          "Nothing changed.");
      assertThat(api.controls("click-other-key")).isEmpty();
    } finally {
      api.workerSigning.set(api.context.getBean(ApprovalSigning.class));
    }
  }

  private void awaitAwaitingApproval(String workflowId) throws InterruptedException {
    RecoverQuorumWorkflow run = api.client.newWorkflowStub(RecoverQuorumWorkflow.class, workflowId);
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (run.progress().phase() != Phase.AWAITING_APPROVAL && System.nanoTime() < until)
      Thread.sleep(50);
  }

  @Test
  void cancelStopsTheRunWaitingForApproval() throws Exception {
    SlackButtons.Target run = startUpgrade("click-cancel");

    click(OPERATOR, SlackButtons.Action.CANCEL, run);

    JsonNode outcome = next();
    assertThat(outcome.path("replace_original").asBoolean()).isTrue();
    assertThat(outcome.path("text").asText())
        .contains("<@" + OPERATOR + "> cancelled `click-cancel`");
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (status("click-cancel") == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING
        && System.nanoTime() < until) Thread.sleep(100);
    assertThat(status("click-cancel"))
        .isEqualTo(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_CANCELED);
  }

  private SlackButtons.Target startUpgrade(String workflowId) {
    return new SlackButtons.Target(workflowId, api.startUpgradeAwaitingApproval(workflowId));
  }

  private static WorkflowOptions options(String workflowId) {
    return WorkflowOptions.newBuilder()
        .setWorkflowId(workflowId)
        .setTaskQueue(ApiHarness.TASK_QUEUE)
        .build();
  }

  private WorkflowExecutionStatus status(String workflowId) {
    return api.client.newUntypedWorkflowStub(workflowId).describe().getStatus();
  }

  /** The outcome posted to the click's response URL. */
  private JsonNode next() throws InterruptedException {
    return slack.next().body();
  }

  private static void assertEphemeral(JsonNode message, String... text) {
    assertThat(message.path("response_type").asText())
        .as(message.toString())
        .isEqualTo("ephemeral");
    assertThat(message.path("replace_original").asBoolean(true)).isFalse();
    assertThat(message.path("text").asText()).contains(text);
  }

  private static void assertRefused(HttpResponse<String> response, int status, String why)
      throws Exception {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
    assertThat(JSON.readTree(response.body()).path("error").asText()).contains(why);
    assertThat(response.body()).doesNotContain(SECRET);
  }

  private HttpResponse<String> click(
      String user, SlackButtons.Action action, SlackButtons.Target run) throws Exception {
    return clicks.click(user, action, run);
  }

  private byte[] body(String user, SlackButtons.Action action, SlackButtons.Target run) {
    return clicks.body(user, action.actionId(), run.value());
  }

  private HttpResponse<String> send(byte[] body, String timestamp, String signature)
      throws Exception {
    return clicks.send(body, timestamp, signature);
  }

  private static String sign(String secret, String timestamp, byte[] body) {
    return SlackClicks.sign(secret, timestamp, body);
  }

  private String responseUrlPrefix() {
    return slack.base();
  }
}
