package io.etcdrunbooks.workflows.common;

import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.UpdateMethod;
import io.temporal.workflow.UpdateValidatorMethod;

/**
 * What every runbook offers besides its workflow method: visible progress, pause/resume between
 * members, approval of a runbook started with {@code requireApproval}, and cancel with a reason.
 *
 * <p>Each control is a Workflow Update ({@code approveRun}, {@code pauseRun}, {@code resumeRun},
 * {@code cancelRun}): its validator refuses, with the reason and before anything enters the
 * history, a control that does not fit the run (an approval of a run that does not wait for one, of
 * a dry run, of another plan than the one shown, or without the signed token a role needs; a pause
 * of a paused run...). The API and Slack send these. The signals {@code pause}, {@code resume} and
 * {@code approve} stay for the histories that carry them and for scripts; they take who sent them
 * and validate nothing. Every control is kept in the memo under {@code controls}.
 */
public interface Runbook {

  String APPROVE_UPDATE = "approveRun";
  String PAUSE_UPDATE = "pauseRun";
  String RESUME_UPDATE = "resumeRun";
  String CANCEL_UPDATE = "cancelRun";

  @QueryMethod
  Progress progress();

  /** Stops before the next member is touched; the member in hand is finished first. */
  @SignalMethod
  void pause(String by);

  @SignalMethod
  void resume(String by);

  /** Lets a runbook started with requireApproval go past its last check, to its first change. */
  @SignalMethod
  void approve(String by);

  /** Approves the plan the waiting runbook shows ({@link Progress#approvalPlan()}). */
  @UpdateMethod(name = APPROVE_UPDATE)
  ControlOutcome approveRun(ApproveRequest request);

  @UpdateValidatorMethod(updateName = APPROVE_UPDATE)
  void validateApproveRun(ApproveRequest request);

  /** Holds the runbook before the next member; refused when it is paused already. */
  @UpdateMethod(name = PAUSE_UPDATE)
  ControlOutcome pauseRun(ControlRequest request);

  @UpdateValidatorMethod(updateName = PAUSE_UPDATE)
  void validatePauseRun(ControlRequest request);

  /** Lets a paused runbook go on; refused when it is not paused. */
  @UpdateMethod(name = RESUME_UPDATE)
  ControlOutcome resumeRun(ControlRequest request);

  @UpdateValidatorMethod(updateName = RESUME_UPDATE)
  void validateResumeRun(ControlRequest request);

  /**
   * Stops the runbook at its next safe point, as Temporal's cancel request does, keeping who asked
   * and why; refused when a cancel was requested already.
   */
  @UpdateMethod(name = CANCEL_UPDATE)
  ControlOutcome cancelRun(CancelRequest request);

  @UpdateValidatorMethod(updateName = CANCEL_UPDATE)
  void validateCancelRun(CancelRequest request);
}
