package io.etcdrunbooks.workflows.maintenance;

import io.etcdrunbooks.workflows.common.RunbookWorkflow;
import io.etcdrunbooks.workflows.phases.Activities;
import io.etcdrunbooks.workflows.phases.RunContext;

/** The MaintenanceSchedule runbook: its phases are in {@link MaintenanceSchedulePhases}. */
public final class MaintenanceScheduleWorkflowImpl extends RunbookWorkflow
    implements MaintenanceScheduleWorkflow {

  public MaintenanceScheduleWorkflowImpl() {
    super(TYPE);
  }

  @Override
  public MaintenanceScheduleResult run(MaintenanceScheduleRequest request) {
    return runFor(
        request.cluster(),
        () -> {
          RunContext ctx =
              new RunContext(
                  new Activities(waitHeartbeatTimeout()), progress, this, request.cluster());
          return MaintenanceSchedulePhases.run(
              ScheduledRound.of(request)
                  .map(round -> new MaintenanceScheduleRun(ctx, round, true))
                  .orElseGet(() -> new MaintenanceScheduleRun(ctx, request)),
              progress);
        });
  }
}
