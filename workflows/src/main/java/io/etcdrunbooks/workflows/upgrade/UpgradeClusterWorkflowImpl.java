package io.etcdrunbooks.workflows.upgrade;

import io.etcdrunbooks.workflows.common.RunbookWorkflow;
import io.etcdrunbooks.workflows.phases.Activities;
import io.etcdrunbooks.workflows.phases.RunContext;

/** The UpgradeCluster runbook: its phases are in {@link UpgradePhases}, in order. */
public final class UpgradeClusterWorkflowImpl extends RunbookWorkflow
    implements UpgradeClusterWorkflow {

  public UpgradeClusterWorkflowImpl() {
    super(TYPE);
  }

  @Override
  public UpgradeResult upgrade(UpgradeRequest request) {
    return runChange(
        request.cluster(),
        request.dryRun(),
        () -> {
          UpgradeRun run =
              new UpgradeRun(
                  new RunContext(
                      new Activities(waitHeartbeatTimeout()), progress, this, request.cluster()),
                  request);
          UpgradePhases.RUNNER.run(run, progress);
          return run.result();
        });
  }
}
