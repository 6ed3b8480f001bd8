package io.etcdrunbooks.workflows.downgrade;

import io.etcdrunbooks.workflows.common.RunbookWorkflow;
import io.etcdrunbooks.workflows.phases.Activities;
import io.etcdrunbooks.workflows.phases.RunContext;

/** The DowngradeCluster runbook: its phases are in {@link DowngradePhases}, in order. */
public final class DowngradeClusterWorkflowImpl extends RunbookWorkflow
    implements DowngradeClusterWorkflow {

  public DowngradeClusterWorkflowImpl() {
    super(TYPE);
  }

  @Override
  public DowngradeResult downgrade(DowngradeRequest request) {
    return runChange(
        request.cluster(),
        request.dryRun(),
        () -> {
          DowngradeRun run =
              new DowngradeRun(
                  new RunContext(
                      new Activities(waitHeartbeatTimeout()), progress, this, request.cluster()),
                  request);
          DowngradePhases.RUNNER.run(run, progress);
          return run.result();
        });
  }
}
