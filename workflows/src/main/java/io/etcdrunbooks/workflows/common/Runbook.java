package io.etcdrunbooks.workflows.common;

import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;

/** What every runbook offers besides its workflow method: visible progress, and pause/resume between members. */
public interface Runbook {

  @QueryMethod
  Progress progress();

  /** Stops before the next member is touched; the member in hand is finished first. */
  @SignalMethod
  void pause();

  @SignalMethod
  void resume();
}
