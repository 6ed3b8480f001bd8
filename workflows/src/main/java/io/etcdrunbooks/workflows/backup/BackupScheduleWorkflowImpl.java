package io.etcdrunbooks.workflows.backup;

import io.etcdrunbooks.workflows.common.RunbookWorkflow;
import io.etcdrunbooks.workflows.phases.Activities;
import io.etcdrunbooks.workflows.phases.RunContext;

/**
 * The BackupSchedule runbook: its phases are in {@link BackupSchedulePhases}, one round after
 * another.
 */
public final class BackupScheduleWorkflowImpl extends RunbookWorkflow
    implements BackupScheduleWorkflow {

  public BackupScheduleWorkflowImpl() {
    super(TYPE);
  }

  @Override
  public BackupScheduleResult run(BackupScheduleRequest request) {
    return runFor(
        request.cluster(),
        () ->
            BackupSchedulePhases.run(
                new ScheduleRun(
                    new RunContext(
                        new Activities(waitHeartbeatTimeout()), progress, this, request.cluster()),
                    request),
                progress));
  }
}
