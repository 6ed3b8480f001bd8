package io.etcdrunbooks.workflows.common;

import io.temporal.failure.CanceledFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * What every runbook implementation shares: its progress, the pause/resume/approve signals and the
 * control updates with their validators (each control kept in the memo), the approval gate, and
 * marking the runbook failed with the root cause before the failure leaves the workflow.
 */
public abstract class RunbookWorkflow implements Runbook, ApprovalGate {

  /**
   * Memo key of the controls the runbook received: "2026-11-23T10:00:00Z approve by on-call",
   * oldest first.
   */
  public static final String CONTROLS_MEMO = "controls";

  protected final ProgressTracker progress;
  private final String runbookType;
  private final List<String> controls = new ArrayList<>();
  private String approvedBy;
  private ApprovalSigning signing = ApprovalSigning.NO_KEY;
  private boolean dryRun;
  private int approvalGates;
  private CancellationScope stopsAtOnce;
  private Duration waitHeartbeatTimeout = DEFAULT_WAIT_HEARTBEAT_TIMEOUT;

  /**
   * The worker's runbooks.activities.wait-heartbeat-timeout-seconds by default: the waits' own (20
   * s), so that each keeps its own.
   */
  public static final Duration DEFAULT_WAIT_HEARTBEAT_TIMEOUT = Duration.ofSeconds(20);

  protected RunbookWorkflow(String runbookType) {
    this.runbookType = runbookType;
    this.progress = new ProgressTracker(runbookType, getClass());
  }

  /**
   * How approvals that need a role are checked: the worker's workflow implementation factory gives
   * it (with the key it read), so workflow code reads no file. Without it, such approvals are
   * refused.
   */
  public final RunbookWorkflow withApprovalSigning(ApprovalSigning signing) {
    this.signing = Objects.requireNonNull(signing);
    return this;
  }

  /**
   * Whether the namespace has the runbooks' search attributes (the worker's
   * runbooks.search-attributes.enabled), given by the worker's workflow implementation factory: a
   * run started without them (from the Web UI or CLI) then takes them at its start.
   */
  public final RunbookWorkflow withSearchAttributesRegistered(boolean registered) {
    progress.searchAttributesRegistered(registered);
    return this;
  }

  /**
   * The most the heartbeat timeout of a wait (a member's restart, its readiness, ...) may be (the
   * worker's runbooks.activities.wait-heartbeat-timeout-seconds), given by the worker's workflow
   * implementation factory: how long a wait whose worker died lasts before another worker takes it
   * over.
   */
  public final RunbookWorkflow withWaitHeartbeatTimeout(Duration timeout) {
    this.waitHeartbeatTimeout = Objects.requireNonNull(timeout);
    return this;
  }

  /** What {@link #withWaitHeartbeatTimeout} gave, for the runbook's activity stubs. */
  protected final Duration waitHeartbeatTimeout() {
    return waitHeartbeatTimeout;
  }

  /**
   * Runs the body of a runbook that does not change the cluster: a cancel request stops it at once.
   * A failure is recorded in the progress, then rethrown.
   */
  protected final <T> T runFor(String cluster, Supplier<T> body) {
    progress.start(cluster);
    // no safe points here: a cancel update stops such a runbook at once, as a cancel request does
    stopsAtOnce = CancellationScope.current();
    try {
      return finished(body.get());
    } catch (RuntimeException e) {
      throw failed(e);
    }
  }

  /**
   * Runs the body of a runbook that changes the cluster. Unless it is a dry run, it first refuses
   * to run under any workflow id but the cluster's change id ({@link RunbookIds#whyNotChangeId}),
   * before it looks at anything: one change per cluster rests on that id, whoever starts the
   * runbook. A cancel request (the API's cancel, or Cancel in the Temporal Web UI) does not
   * interrupt the step in hand: the body runs in a detached scope and stops at its next {@link
   * ProgressTracker#safePoint}, so a member is never left half-switched or a restore half-done.
   */
  protected final <T> T runChange(String cluster, boolean dryRun, Supplier<T> body) {
    this.dryRun = dryRun;
    return runToSafePoint(
        cluster,
        () -> {
          requireChangeId(cluster, dryRun);
          return body.get();
        });
  }

  private void requireChangeId(String cluster, boolean dryRun) {
    // added after the runbooks shipped: histories recorded before it replay without the check
    if (!RunbookPatches.CHANGE_ID_GUARD.applies() || dryRun) return;
    String parent = Workflow.getInfo().getParentWorkflowId().orElse(null);
    RunbookIds.whyNotChangeId(runbookType, cluster, Workflow.getInfo().getWorkflowId(), parent)
        .ifPresent(
            why -> {
              throw FailureType.WrongWorkflowId.nonRetryable(why);
            });
  }

  private <T> T runToSafePoint(String cluster, Supplier<T> body) {
    progress.start(cluster);
    CancellationScope workflowScope = CancellationScope.current();
    List<Promise<T>> outcome = new ArrayList<>(1);
    Workflow.newDetachedCancellationScope(() -> outcome.add(Async.function(body::get))).run();
    workflowScope
        .getCancellationRequest()
        .thenApply(
            reason -> {
              // a cancelRun update came first and kept who and why; Temporal's cancel after it
              // (the Web UI's Cancel) only makes Temporal mark the run cancelled
              if (progress.isCancelRequested()) return reason;
              String by = reason == null || reason.isBlank() ? "a Temporal cancel request" : reason;
              progress.cancelRequested(by);
              control("cancel", by);
              return reason;
            });
    try {
      return finished(
          outcome
              .get(0)
              .get()); // get(), not cancellableGet(): waits for the body whatever the workflow
      // scope
    } catch (RuntimeException e) {
      throw failed(e);
    }
  }

  private <T> T finished(T result) {
    progress.finished("completed");
    return result;
  }

  private RuntimeException failed(RuntimeException e) {
    progress.failed(e);
    progress.finished(e instanceof CanceledFailure ? "cancelled" : "failed");
    return e;
  }

  /**
   * Holds a runbook started with requireApproval before its first change until an operator approves
   * it, it is cancelled (ends here with CanceledFailure), or {@code stopWaiting} becomes true.
   *
   * @param firstChange what approval lets happen, for the progress message
   * @return true once approved, false when {@code stopWaiting} ended the wait
   */
  @Override
  public final boolean awaitApproval(String firstChange, BooleanSupplier stopWaiting) {
    if (approvedBy != null) return true;
    String shown = progress.message();
    progress.phase(Phase.AWAITING_APPROVAL);
    String id = Workflow.getInfo().getWorkflowId();
    String plan =
        ApprovalPlan.id(id, Workflow.getInfo().getRunId(), ++approvalGates, firstChange, shown);
    progress.approvalPlan(plan);
    progress.message(
        ("waiting for approval before %s: POST /api/v1/runbooks/%s/approve (%s), '/etcd"
                + " approve %s' in Slack, or the %s update with {\"by\":\"<you>\",\"planId\":\"%s\"}"
                + " from the Temporal Web UI")
            .formatted(
                firstChange, id, Approver.forRunbook(runbookType).who(), id, APPROVE_UPDATE, plan));
    Workflow.await(
        () -> approvedBy != null || stopWaiting.getAsBoolean() || progress.isCancelRequested());
    progress.approvalPlan("");
    if (approvedBy == null && progress.isCancelRequested()) progress.safePoint(firstChange);
    return approvedBy != null;
  }

  protected final boolean approved() {
    return approvedBy != null;
  }

  /**
   * The next {@link #awaitApproval} waits for a new approval: for a runbook with more than one gate
   * (a fleet's waves), each approved on its own.
   */
  protected final void needApprovalAgain() {
    approvedBy = null;
  }

  @Override
  public final Progress progress() {
    return progress.snapshot();
  }

  @Override
  public final void pause(String by) {
    progress.pause();
    control("pause", by);
  }

  @Override
  public final void resume(String by) {
    progress.resume();
    control("resume", by);
  }

  @Override
  public final void approve(String by) {
    if (approvedBy != null || signalRefused(by)) return;
    approveAs(by);
  }

  /**
   * The approve signal carries no token: for a runbook whose approval needs a role, a worker with
   * the operator's shared key refuses it (runs started before this change take it, as they did).
   */
  private boolean signalRefused(String by) {
    if (!Approver.forRunbook(runbookType).needsSignedToken()) return false;
    if (!RunbookPatches.SIGNED_APPROVALS.applies()) return false;
    // the worker's configuration, kept in the history: a replay on another configuration agrees
    if (!Workflow.sideEffect(Boolean.class, signing::refusesUnsignedSignals)) return false;
    progress.message(
        ("the approve signal of %s was not taken: %s needs %s, proven by a signed approval: POST"
                + " /api/v1/runbooks/%s/approve or Slack")
            .formatted(
                named(by),
                runbookType,
                Approver.forRunbook(runbookType).who(),
                Workflow.getInfo().getWorkflowId()));
    return true;
  }

  private void approveAs(String by) {
    approvedBy = by == null || by.isBlank() ? "an operator" : by;
    progress.message("approved by " + approvedBy);
    control("approve", by);
  }

  @Override
  public final ControlOutcome approveRun(ApproveRequest request) {
    if (approvedBy == null) approveAs(request.by());
    return outcome("approve", request.by());
  }

  @Override
  public final void validateApproveRun(ApproveRequest request) {
    refuseIf(whyNotApprove(request));
  }

  private Optional<String> whyNotApprove(ApproveRequest request) {
    String id = Workflow.getInfo().getWorkflowId();
    if (request == null) return Optional.of("an approval names who approves and the planId");
    if (dryRun) {
      return Optional.of(id + " is a dry run: it changes nothing and waits for no approval");
    }
    if (approvedBy != null) return Optional.of(id + " is approved already, by " + approvedBy);
    if (progress.isCancelRequested()) {
      return Optional.of(
          "a cancel was requested (%s): %s stops, an approval would change nothing"
              .formatted(progress.cancelRequestedBy(), id));
    }
    if (progress.phase() != Phase.AWAITING_APPROVAL) {
      return Optional.of(
          "%s is not waiting for approval (phase %s): approve it once it is in AWAITING_APPROVAL"
                  .formatted(id, progress.phase())
              + " and shows its plan");
    }
    String waiting = progress.snapshot().approvalPlan();
    if (request.planId() == null || request.planId().isBlank()) {
      return Optional.of(
          "name the plan you approve: planId %s, the approvalPlan of %s's progress"
              .formatted(waiting, id));
    }
    if (!waiting.equals(request.planId())) {
      return Optional.of(
          "plan %s is not the one %s waits with (%s): read its progress again before approving"
              .formatted(request.planId(), id, waiting));
    }
    Approver approver = Approver.forRunbook(runbookType);
    if (!approver.needsSignedToken()) return Optional.empty();
    return signing.whyNot(id, request, approver.role(), Workflow.currentTimeMillis());
  }

  @Override
  public final ControlOutcome pauseRun(ControlRequest request) {
    pause(request.by());
    return outcome("pause", request.by());
  }

  @Override
  public final void validatePauseRun(ControlRequest request) {
    refuseIf(
        progress.isPaused()
            ? Optional.of(Workflow.getInfo().getWorkflowId() + " is paused already")
            : Optional.empty());
  }

  @Override
  public final ControlOutcome resumeRun(ControlRequest request) {
    resume(request.by());
    return outcome("resume", request.by());
  }

  @Override
  public final void validateResumeRun(ControlRequest request) {
    refuseIf(
        progress.isPaused()
            ? Optional.empty()
            : Optional.of(
                Workflow.getInfo().getWorkflowId() + " is not paused: nothing to resume"));
  }

  /**
   * Stops the runbook as Temporal's cancel request does: one that changes the cluster at its next
   * safe point, any other at once. The run ends with a CanceledFailure naming who asked and why;
   * Temporal marks it cancelled only for its own cancel request, which the API and Slack send right
   * after this update.
   */
  @Override
  public final ControlOutcome cancelRun(CancelRequest request) {
    String by = named(request.by());
    String who =
        request.reason() == null || request.reason().isBlank()
            ? by
            : by + " (" + request.reason() + ")";
    progress.cancelRequested(who);
    control("cancel", who);
    if (stopsAtOnce != null) stopsAtOnce.cancel(who);
    return outcome("cancel", who);
  }

  @Override
  public final void validateCancelRun(CancelRequest request) {
    refuseIf(
        progress.isCancelRequested()
            ? Optional.of(
                "a cancel was requested already (%s): %s stops at its next safe point"
                    .formatted(progress.cancelRequestedBy(), Workflow.getInfo().getWorkflowId()))
            : Optional.empty());
  }

  /** The ApplicationFailure type a refused control update answers with; its message is why. */
  public static final String CONTROL_REFUSED = ControlRefused.class.getName();

  private static void refuseIf(Optional<String> why) {
    if (why.isPresent()) throw new ControlRefused(why.get());
  }

  private ControlOutcome outcome(String control, String by) {
    return new ControlOutcome(control, named(by), progress.phase(), progress.message());
  }

  private static String named(String by) {
    return by == null || by.isBlank() ? "(not named)" : by;
  }

  /**
   * Keeps a control in the memo, so the Web UI and the API's list show who paused, resumed,
   * approved or cancelled it.
   */
  private void control(String what, String by) {
    // added after the runbooks shipped: histories recorded before it replay without the memo update
    if (!RunbookPatches.CONTROLS_MEMO.applies()) return;
    controls.add(
        "%s %s by %s"
            .formatted(
                Instant.ofEpochMilli(Workflow.currentTimeMillis()),
                what,
                by == null || by.isBlank() ? "(not named)" : by));
    Workflow.upsertMemo(Map.of(CONTROLS_MEMO, List.copyOf(controls)));
  }
}
