package io.etcdrunbooks.workflows.fleet;

import io.etcdrunbooks.workflows.common.RunbookWorkflow;
import io.etcdrunbooks.workflows.phases.Activities;

/** The FleetUpgrade runbook: its phases are in {@link FleetPhases}, in order. */
public final class FleetUpgradeWorkflowImpl extends RunbookWorkflow
    implements FleetUpgradeWorkflow {

  private FleetRun run;

  public FleetUpgradeWorkflowImpl() {
    super(TYPE);
  }

  @Override
  public FleetStatus upgrade(FleetUpgradeRequest request) {
    run =
        new FleetRun(
            new Activities(waitHeartbeatTimeout()),
            progress,
            request,
            this,
            this::needApprovalAgain);
    return runFor(
        "fleet:" + request.fleet(),
        () -> {
          FleetPhases.RUNNER.run(run, progress);
          return run.status();
        });
  }

  @Override
  public FleetStatus fleetStatus() {
    return run == null ? null : run.status();
  }
}
