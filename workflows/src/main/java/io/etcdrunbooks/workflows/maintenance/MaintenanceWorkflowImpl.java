package io.etcdrunbooks.workflows.maintenance;

import io.etcdrunbooks.workflows.common.RunbookWorkflow;
import io.etcdrunbooks.workflows.phases.Activities;
import io.etcdrunbooks.workflows.phases.RunContext;

/** The Maintenance runbook: its phases are in {@link MaintenancePhases}, in order. */
public final class MaintenanceWorkflowImpl extends RunbookWorkflow implements MaintenanceWorkflow {

  public MaintenanceWorkflowImpl() {
    super(TYPE);
  }

  @Override
  public MaintenanceResult maintain(MaintenanceRequest request) {
    return runChange(
        request.cluster(),
        request.dryRun(),
        () -> {
          MaintenanceRun run =
              new MaintenanceRun(
                  new RunContext(
                      new Activities(waitHeartbeatTimeout()), progress, this, request.cluster()),
                  request);
          MaintenancePhases.RUNNER.run(run, progress);
          return run.result();
        });
  }
}
