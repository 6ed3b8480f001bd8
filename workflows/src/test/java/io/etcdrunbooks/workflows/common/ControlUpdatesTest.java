package io.etcdrunbooks.workflows.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.etcdrunbooks.workflows.backup.BackupClusterWorkflow;
import io.etcdrunbooks.workflows.recover.RecoverQuorumWorkflow;
import io.etcdrunbooks.workflows.testing.RunbookWaits;
import io.etcdrunbooks.workflows.upgrade.UpgradeClusterWorkflow;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.client.WorkflowUpdateException;
import io.temporal.failure.CanceledFailure;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The control updates of every runbook ({@link Runbook}): each validator refuses, with its reason
 * and before anything enters the history, a control that does not fit the run; the accepted ones do
 * what the signals do; the signals still work.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class ControlUpdatesTest {

  private static final String QUEUE = "control-updates";
  private static final byte[] KEY =
      "a shared approval key of 32 bytes or more, for the test".getBytes(StandardCharsets.UTF_8);

  /** What the stand-in runbook does: which rule applies, and whether it changes anything. */
  public record Plan(String runbookType, String cluster, boolean dryRun, boolean changes) {}

  @WorkflowInterface
  public interface StandIn extends Runbook {
    @WorkflowMethod
    String run(Plan plan);

    /** Ends the preflight: the run goes on to its approval. */
    @SignalMethod
    void go();
  }

  /**
   * A preflight that shows a plan, the approval gate, then two members with a safe point before
   * each; or, not changing, a wait that only a cancel ends.
   */
  static final class StandInImpl extends RunbookWorkflow implements StandIn {
    private boolean go;

    StandInImpl(String runbookType) {
      super(runbookType);
    }

    @Override
    public String run(Plan plan) {
      if (!plan.changes()) {
        return runFor(
            plan.cluster(),
            () -> {
              Workflow.await(() -> false);
              return "";
            });
      }
      return runChange(
          plan.cluster(),
          plan.dryRun(),
          () -> {
            progress.phase(Phase.PREFLIGHT);
            progress.message("plan: m1, then m2");
            Workflow.await(() -> go);
            if (plan.dryRun()) {
              Workflow.await(() -> false);
            }
            awaitApproval("the first member", () -> false);
            progress.phase(Phase.UPGRADE);
            for (String member : List.of("m1", "m2")) {
              progress.safePoint("member " + member);
              progress.awaitResumed();
              Workflow.sleep(Duration.ofMinutes(1));
            }
            return "done";
          });
    }

    @Override
    public void go() {
      go = true;
    }
  }

  private final TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance();
  private WorkflowClient client;
  private ApprovalSigning workerSigning = ApprovalSigning.withKey(KEY);

  @AfterEach
  void close() {
    env.close();
  }

  private StandIn start(String runbookType, String cluster, boolean dryRun, boolean changes) {
    env.newWorker(QUEUE)
        .registerWorkflowImplementationFactory(
            StandIn.class,
            () -> (StandIn) new StandInImpl(runbookType).withApprovalSigning(workerSigning));
    env.start();
    client = env.getWorkflowClient();
    String id = dryRun || !changes ? "stand-in-" + cluster : RunbookIds.changing(cluster);
    StandIn run =
        client.newWorkflowStub(
            StandIn.class,
            WorkflowOptions.newBuilder().setTaskQueue(QUEUE).setWorkflowId(id).build());
    WorkflowClient.start(run::run, new Plan(runbookType, cluster, dryRun, changes));
    return run;
  }

  private StandIn awaitingApproval(String runbookType) {
    StandIn run = start(runbookType, "c1", false, true);
    RunbookWaits.awaitPhase(env, run, Phase.PREFLIGHT);
    run.go();
    RunbookWaits.awaitPhase(env, run, Phase.AWAITING_APPROVAL);
    return run;
  }

  private static String refusal(Runnable update) {
    Throwable thrown = catchThrowable(update::run);
    assertThat(thrown).isInstanceOf(WorkflowUpdateException.class);
    assertThat(Failures.rootType(thrown)).isEqualTo(RunbookWorkflow.CONTROL_REFUSED);
    return Failures.rootMessage(thrown);
  }

  @Test
  void anApprovalBeforeTheRunWaitsForOneIsRefusedAndLeavesNoTraceInTheHistory() {
    StandIn run = start(UpgradeClusterWorkflow.TYPE, "c1", false, true);
    RunbookWaits.awaitPhase(env, run, Phase.PREFLIGHT);

    assertThat(refusal(() -> run.approveRun(ApproveRequest.of("alice", "anything"))))
        .isEqualTo(
            "change-c1 is not waiting for approval (phase PREFLIGHT): approve it once it is in"
                + " AWAITING_APPROVAL and shows its plan");
    assertThat(refusal(() -> run.resumeRun(new ControlRequest("alice"))))
        .isEqualTo("change-c1 is not paused: nothing to resume");

    assertThat(updateEvents("change-c1")).isEmpty();
    run.go();
    RunbookWaits.awaitPhase(env, run, Phase.AWAITING_APPROVAL);
    assertThat(run.progress().message()).doesNotContain("approved");
  }

  @Test
  void theApprovalOfThePlanShownIsAcceptedOnceAndAnotherPlanIsRefused() {
    StandIn run = awaitingApproval(UpgradeClusterWorkflow.TYPE);
    String plan = run.progress().approvalPlan();
    assertThat(plan).matches("[0-9a-f]{16}");
    assertThat(run.progress().message()).contains("\"planId\":\"" + plan + "\"");

    assertThat(refusal(() -> run.approveRun(ApproveRequest.of("alice", "0123456789abcdef"))))
        .isEqualTo(
            "plan 0123456789abcdef is not the one change-c1 waits with (%s): read its progress"
                    .formatted(plan)
                + " again before approving");
    assertThat(refusal(() -> run.approveRun(ApproveRequest.of("alice", ""))))
        .startsWith("name the plan you approve: planId " + plan);

    ControlOutcome approved = run.approveRun(ApproveRequest.of("alice", plan));

    assertThat(approved)
        .isEqualTo(
            new ControlOutcome("approve", "alice", Phase.AWAITING_APPROVAL, "approved by alice"));
    assertThat(refusal(() -> run.approveRun(ApproveRequest.of("bob", plan))))
        .isEqualTo("change-c1 is approved already, by alice");
    RunbookWaits.awaitPhase(env, run, Phase.UPGRADE);
    assertThat(run.progress().approvalPlan()).isEmpty();
    assertThat(controls("change-c1")).hasSize(1).allMatch(c -> c.endsWith(" approve by alice"));
    assertThat(updateEvents("change-c1"))
        .containsExactly(
            EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED,
            EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED);
  }

  @Test
  void anApprovalOfADryRunIsRefused() {
    StandIn run = start(UpgradeClusterWorkflow.TYPE, "c1", true, true);
    RunbookWaits.awaitPhase(env, run, Phase.PREFLIGHT);

    assertThat(refusal(() -> run.approveRun(ApproveRequest.of("alice", "0123456789abcdef"))))
        .isEqualTo("stand-in-c1 is a dry run: it changes nothing and waits for no approval");
  }

  @Test
  void anApprovalThatNeedsARoleIsRefusedUnsignedForgedOrExpiredAndAcceptedSigned() {
    StandIn run = awaitingApproval(RecoverQuorumWorkflow.TYPE);
    String plan = run.progress().approvalPlan();
    ApprovalSigning signing = ApprovalSigning.withKey(KEY);
    long inTenMinutes = env.currentTimeMillis() + 600_000;

    assertThat(refusal(() -> run.approveRun(ApproveRequest.of("sre-lead", plan))))
        .startsWith(
            "this runbook's approval needs admin; it carries no signed token: approve it through"
                + " the API (POST /api/v1/runbooks/change-c1/approve) or Slack");
    ApprovalToken forOperator =
        signing.sign("change-c1", plan, "sre-lead", "operator", inTenMinutes);
    assertThat(refusal(() -> run.approveRun(new ApproveRequest("sre-lead", plan, forOperator))))
        .isEqualTo("the token is for role operator, this approval needs admin");
    ApprovalToken otherKey =
        ApprovalSigning.withKey("another key of 32 bytes or more, not the worker's".getBytes())
            .sign("change-c1", plan, "sre-lead", "admin", inTenMinutes);
    assertThat(refusal(() -> run.approveRun(new ApproveRequest("sre-lead", plan, otherKey))))
        .startsWith("the token's signature does not match");
    ApprovalToken forAlice = signing.sign("change-c1", plan, "alice", "admin", inTenMinutes);
    assertThat(refusal(() -> run.approveRun(new ApproveRequest("mallory", plan, forAlice))))
        .startsWith("the token's signature does not match");
    ApprovalToken expired =
        signing.sign("change-c1", plan, "sre-lead", "admin", env.currentTimeMillis() - 1);
    assertThat(refusal(() -> run.approveRun(new ApproveRequest("sre-lead", plan, expired))))
        .isEqualTo("the token expired: approve again through the API or Slack");
    assertThat(updateEvents("change-c1")).isEmpty();

    ApprovalToken valid = signing.sign("change-c1", plan, "sre-lead", "admin", inTenMinutes);
    assertThat(run.approveRun(new ApproveRequest("sre-lead", plan, valid)).message())
        .isEqualTo("approved by sre-lead");
    RunbookWaits.awaitPhase(env, run, Phase.UPGRADE);
  }

  @Test
  void pauseAndResumeThatWouldDoNothingAreRefused() {
    StandIn run = awaitingApproval(UpgradeClusterWorkflow.TYPE);

    assertThat(run.pauseRun(new ControlRequest("alice")).control()).isEqualTo("pause");
    assertThat(run.progress().paused()).isTrue();
    assertThat(refusal(() -> run.pauseRun(new ControlRequest("bob"))))
        .isEqualTo("change-c1 is paused already");
    assertThat(run.resumeRun(new ControlRequest("bob")).control()).isEqualTo("resume");
    assertThat(run.progress().paused()).isFalse();
    assertThat(refusal(() -> run.resumeRun(new ControlRequest("bob"))))
        .isEqualTo("change-c1 is not paused: nothing to resume");
    assertThat(controls("change-c1"))
        .satisfiesExactly(
            c -> assertThat(c).endsWith(" pause by alice"),
            c -> assertThat(c).endsWith(" resume by bob"));
  }

  @Test
  void aCancelUpdateStopsTheRunAtItsSafePointWithWhoAndWhy() {
    StandIn run = awaitingApproval(UpgradeClusterWorkflow.TYPE);

    ControlOutcome cancelled = run.cancelRun(new CancelRequest("bob", "the window closed"));

    assertThat(cancelled.control()).isEqualTo("cancel");
    assertThat(cancelled.by()).isEqualTo("bob (the window closed)");
    Throwable failure = catchThrowable(() -> WorkflowStub.fromTyped(run).getResult(String.class));
    assertThat(Failures.rootMessage(failure))
        .startsWith("cancelled by bob (the window closed) before the first member");
    assertThat(run.progress().phase()).isEqualTo(Phase.CANCELLED);
    assertThat(controls("change-c1"))
        .singleElement()
        .asString()
        .endsWith(" cancel by bob (the window closed)");
  }

  @Test
  void aCancelUpdateThenTemporalsCancelEndTheRunCancelledWithOneControl() {
    StandIn run = start(UpgradeClusterWorkflow.TYPE, "c1", false, true);
    RunbookWaits.awaitPhase(env, run, Phase.PREFLIGHT);

    run.cancelRun(new CancelRequest("bob", "the window closed"));
    assertThat(refusal(() -> run.cancelRun(new CancelRequest("carol", ""))))
        .isEqualTo(
            "a cancel was requested already (bob (the window closed)): change-c1 stops at its next"
                + " safe point");
    WorkflowStub.fromTyped(run).cancel("cancelled through the API by bob");
    run.go();

    Throwable failure = catchThrowable(() -> WorkflowStub.fromTyped(run).getResult(String.class));
    assertThat(failure).hasRootCauseInstanceOf(CanceledFailure.class);
    assertThat(status("change-c1"))
        .isEqualTo(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_CANCELED);
    assertThat(controls("change-c1"))
        .singleElement()
        .asString()
        .endsWith(" cancel by bob (the window closed)");
  }

  @Test
  void aCancelUpdateStopsARunbookWithoutSafePointsAtOnce() {
    StandIn run = start(BackupClusterWorkflow.TYPE, "c1", false, false);
    for (int i = 0; i < 200 && run.progress().cluster().isEmpty(); i++) {
      env.sleep(Duration.ofMillis(50));
    }

    run.cancelRun(new CancelRequest("bob", ""));

    Throwable failure = catchThrowable(() -> WorkflowStub.fromTyped(run).getResult(String.class));
    assertThat(failure).hasRootCauseInstanceOf(CanceledFailure.class);
    assertThat(run.progress().phase()).isEqualTo(Phase.CANCELLED);
  }

  @Test
  void onAWorkerWithTheSharedKeyTheApproveSignalDoesNotApproveARunbookThatNeedsARole() {
    StandIn run = awaitingApproval(RecoverQuorumWorkflow.TYPE);

    run.approve("mallory");

    for (int i = 0; i < 200 && !run.progress().message().contains("not taken"); i++) {
      env.sleep(Duration.ofMillis(50));
    }
    assertThat(run.progress().message())
        .startsWith(
            "the approve signal of mallory was not taken: RecoverQuorum needs an admin; with"
                + " runbooks.approvals.recover-quorum-second-person");
    assertThat(run.progress().phase()).isEqualTo(Phase.AWAITING_APPROVAL);
    assertThat(controls("change-c1")).isEmpty();
  }

  @Test
  void withAKeyOfItsOwnProcessTheWorkerTakesTheApproveSignalAsBefore() {
    workerSigning = ApprovalSigning.processKey(KEY);
    StandIn run = awaitingApproval(RecoverQuorumWorkflow.TYPE);

    run.approve("test-admin");

    RunbookWaits.awaitPhase(env, run, Phase.UPGRADE);
    assertThat(controls("change-c1")).singleElement().asString().endsWith(" approve by test-admin");
  }

  @Test
  void theSignalsStillWork() {
    StandIn run = awaitingApproval(UpgradeClusterWorkflow.TYPE);

    run.pause("alice");
    run.resume("alice");
    run.approve("alice");

    RunbookWaits.awaitPhase(env, run, Phase.UPGRADE);
    assertThat(controls("change-c1"))
        .satisfiesExactly(
            c -> assertThat(c).endsWith(" pause by alice"),
            c -> assertThat(c).endsWith(" resume by alice"),
            c -> assertThat(c).endsWith(" approve by alice"));
  }

  private List<EventType> updateEvents(String workflowId) {
    return client.fetchHistory(workflowId).getHistory().getEventsList().stream()
        .map(e -> e.getEventType())
        .filter(t -> t.name().contains("UPDATE"))
        .toList();
  }

  @SuppressWarnings("unchecked")
  private List<String> controls(String workflowId) {
    List<String> controls =
        (List<String>)
            client
                .newUntypedWorkflowStub(workflowId)
                .describe()
                .getMemo(RunbookWorkflow.CONTROLS_MEMO, List.class);
    return controls == null ? List.of() : controls;
  }

  private WorkflowExecutionStatus status(String workflowId) {
    return client.newUntypedWorkflowStub(workflowId).describe().getStatus();
  }
}
