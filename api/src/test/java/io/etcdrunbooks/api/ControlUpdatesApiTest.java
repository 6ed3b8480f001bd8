package io.etcdrunbooks.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.api.testing.ApiHarness;
import io.etcdrunbooks.api.testing.RawHttp.Answer;
import io.etcdrunbooks.api.testing.TestTokens;
import io.etcdrunbooks.workflows.common.ApproveRequest;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.Runbook;
import io.etcdrunbooks.workflows.recover.RecoverQuorumWorkflow;
import io.etcdrunbooks.workflows.upgrade.UpgradeClusterWorkflow;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The API's approve, pause, resume and cancel go through the runbooks' control updates: a control
 * the runbook refuses answers 409 with its reason, and nothing happens.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ControlUpdatesApiTest {

  private static final String RUN = "change-sandbox";
  private static final String RUNBOOK = "/api/v1/runbooks/" + RUN;

  @TempDir Path dir;

  @Test
  void refusedControlsAnswer409WithTheRunbooksReasonAndTheRightOnesAreAccepted() throws Exception {
    try (ApiHarness api = ApiHarness.start(dir, Map.of())) {
      api.startUpgradeAwaitingApproval(RUN);
      String plan = awaitPlan(api, RUN);

      Answer otherPlan =
          send(api, "/approve", TestTokens.OPERATOR, "{\"planId\":\"0000000000000000\"}");
      assertThat(otherPlan.status()).as(otherPlan.body()).isEqualTo(409);
      assertThat(otherPlan.body())
          .contains(
              "plan 0000000000000000 is not the one change-sandbox waits with (" + plan + ")");

      // no body at all, as curl -XPOST sends it
      assertThat(send(api, "/resume", TestTokens.OPERATOR, null).body())
          .contains("change-sandbox is not paused: nothing to resume");
      Answer paused = send(api, "/pause", TestTokens.OPERATOR, "{}");
      assertThat(paused.status()).as(paused.body()).isEqualTo(202);
      assertThat(paused.body()).contains("\"control\":\"pause\"");
      Answer pausedAgain = send(api, "/pause", TestTokens.OPERATOR, "{}");
      assertThat(pausedAgain.status()).isEqualTo(409);
      assertThat(pausedAgain.body()).contains("change-sandbox is paused already");
      assertThat(send(api, "/resume", TestTokens.OPERATOR, "{}").status()).isEqualTo(202);
      assertThat(api.controls(RUN)).doesNotContain("approve");

      Answer approved = send(api, "/approve", TestTokens.OPERATOR, "{\"planId\":\"" + plan + "\"}");
      assertThat(approved.status()).as(approved.body()).isEqualTo(202);
      assertThat(approved.body()).contains("approved by " + TestTokens.OPERATOR.name());
      assertThat(api.controls(RUN)).endsWith(" approve by " + TestTokens.OPERATOR.name());
    }
  }

  @Test
  void aCancelIsTemporalsCancelRequestWithWhoAndWhy() throws Exception {
    try (ApiHarness api = ApiHarness.start(dir, Map.of())) {
      api.startUpgradeAwaitingApproval(RUN);
      awaitPlan(api, RUN);

      Answer cancelled =
          send(api, "/cancel", TestTokens.OPERATOR, "{\"reason\":\"the window closed\"}");

      assertThat(cancelled.status()).as(cancelled.body()).isEqualTo(202);
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (status(api).endsWith("RUNNING") && System.nanoTime() < until) Thread.sleep(50);
      assertThat(status(api)).isEqualTo("WORKFLOW_EXECUTION_STATUS_CANCELED");
      String reason =
          api.client.fetchHistory(RUN).getHistory().getEventsList().stream()
              .filter(e -> e.hasWorkflowExecutionCancelRequestedEventAttributes())
              .map(e -> e.getWorkflowExecutionCancelRequestedEventAttributes().getCause())
              .findFirst()
              .orElse("");
      assertThat(reason)
          .isEqualTo(
              "cancelled through the API by " + TestTokens.OPERATOR.name() + ": the window closed");
      assertThat(send(api, "/cancel", TestTokens.OPERATOR, "{}").status()).isEqualTo(409);
    }
  }

  private static String status(ApiHarness api) {
    return api.client.newUntypedWorkflowStub(RUN).describe().getStatus().name();
  }

  @Test
  void aRecoverQuorumApprovedFromTheWebUiWithoutTheApisSignatureIsRefused() throws Exception {
    try (ApiHarness api = ApiHarness.start(dir, Map.of())) {
      assertThat(
              api.http
                  .send(
                      "POST",
                      "/api/v1/clusters/sandbox/recover-quorum",
                      TestTokens.ADMIN.bearer(),
                      "{\"acknowledgeDataLoss\":true}")
                  .status())
          .isEqualTo(202);
      String plan = awaitPlan(api, RUN);
      Runbook run = api.client.newWorkflowStub(RecoverQuorumWorkflow.class, RUN);

      Throwable refused =
          org.assertj.core.api.Assertions.catchThrowable(
              () -> run.approveRun(ApproveRequest.of("someone", plan)));

      assertThat(io.etcdrunbooks.workflows.common.Failures.rootMessage(refused))
          .startsWith("this runbook's approval needs admin; it carries no signed token");
      Answer byAdmin = send(api, "/approve", TestTokens.ADMIN, null);
      assertThat(byAdmin.status()).as(byAdmin.body()).isEqualTo(202);
      assertThat(api.controls(RUN)).endsWith(" approve by " + TestTokens.ADMIN.name());
    }
  }

  @Test
  void withTheCheckTurnedOffAnApprovalNeedsNoToken() throws Exception {
    try (ApiHarness api =
        ApiHarness.start(dir, Map.of("runbooks.approvals.require-signed-token", false))) {
      assertThat(
              api.http
                  .send(
                      "POST",
                      "/api/v1/clusters/sandbox/recover-quorum",
                      TestTokens.ADMIN.bearer(),
                      "{\"acknowledgeDataLoss\":true}")
                  .status())
          .isEqualTo(202);
      String plan = awaitPlan(api, RUN);

      api.client
          .newWorkflowStub(RecoverQuorumWorkflow.class, RUN)
          .approveRun(ApproveRequest.of("someone", plan));

      assertThat(api.controls(RUN)).endsWith(" approve by someone");
    }
  }

  private static Answer send(ApiHarness api, String control, TestTokens.Token token, String body)
      throws Exception {
    return api.http.send("POST", RUNBOOK + control, token.bearer(), body);
  }

  private static String awaitPlan(ApiHarness api, String workflowId) throws InterruptedException {
    Runbook run = api.client.newWorkflowStub(UpgradeClusterWorkflow.class, workflowId);
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (run.progress().phase() != Phase.AWAITING_APPROVAL && System.nanoTime() < until)
      Thread.sleep(50);
    assertThat(run.progress().phase()).isEqualTo(Phase.AWAITING_APPROVAL);
    return run.progress().approvalPlan();
  }
}
