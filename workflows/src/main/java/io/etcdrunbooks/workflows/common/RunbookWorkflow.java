package io.etcdrunbooks.workflows.common;

import io.temporal.failure.CanceledFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * What every runbook implementation shares: its progress, the pause/resume/approve signals (each
 * kept in the memo), the approval gate, and marking the runbook failed with the root cause before
 * the failure leaves the workflow.
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

  protected RunbookWorkflow(String runbookType) {
    this.runbookType = runbookType;
    this.progress = new ProgressTracker(runbookType, getClass());
  }

  /**
   * Runs the body of a runbook that does not change the cluster: a cancel request stops it at once.
   * A failure is recorded in the progress, then rethrown.
   */
  protected final <T> T runFor(String cluster, Supplier<T> body) {
    progress.start(cluster);
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
    progress.phase(Phase.AWAITING_APPROVAL);
    String id = Workflow.getInfo().getWorkflowId();
    progress.message(
        ("waiting for approval before %s: POST /api/v1/runbooks/%s/approve (%s), '/etcd"
                + " approve %s' in Slack, or signal approve from the Temporal Web UI")
            .formatted(firstChange, id, Approver.forRunbook(runbookType).who(), id));
    Workflow.await(
        () -> approvedBy != null || stopWaiting.getAsBoolean() || progress.isCancelRequested());
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
    if (approvedBy != null) return;
    approvedBy = by == null || by.isBlank() ? "an operator" : by;
    progress.message("approved by " + approvedBy);
    control("approve", by);
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
