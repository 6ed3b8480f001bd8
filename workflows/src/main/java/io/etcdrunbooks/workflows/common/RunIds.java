package io.etcdrunbooks.workflows.common;

import io.temporal.workflow.Workflow;

/** What tells one run of a runbook from another in the names of what it makes. */
public final class RunIds {

  private RunIds() {}

  /**
   * 8 hex digits of this run's id: its last 8, which are random in both UUIDv4 and the UUIDv7 run
   * ids newer Temporal servers give (whose first digits are the time, equal for runs a minute
   * apart); its first 8 in runs recorded before {@link RunbookPatches#RUN_ID_RANDOM_SUFFIX}.
   */
  public static String suffix() {
    String runId = Workflow.getInfo().getRunId();
    return RunbookPatches.RUN_ID_RANDOM_SUFFIX.applies()
        ? runId.substring(runId.length() - 8)
        : runId.substring(0, 8);
  }
}
