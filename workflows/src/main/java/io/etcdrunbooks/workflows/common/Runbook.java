package io.etcdrunbooks.workflows.common;

import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;

/**
 * What every runbook offers besides its workflow method: visible progress, pause/resume between
 * members, and approval of a runbook started with {@code requireApproval}. The signals take who
 * sent them (the API passes the caller's token name; from the Temporal Web UI, type your name),
 * which the runbook keeps in its memo under {@code controls}.
 */
public interface Runbook {

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
}
