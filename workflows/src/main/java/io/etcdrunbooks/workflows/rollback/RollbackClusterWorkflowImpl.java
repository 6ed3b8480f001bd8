package io.etcdrunbooks.workflows.rollback;

import io.etcdrunbooks.workflows.common.RunbookWorkflow;
import io.etcdrunbooks.workflows.phases.Activities;
import io.etcdrunbooks.workflows.phases.RunContext;

/** The RollbackCluster runbook: its phases are in {@link RollbackPhases}, in order. */
public final class RollbackClusterWorkflowImpl extends RunbookWorkflow
    implements RollbackClusterWorkflow {

  public RollbackClusterWorkflowImpl() {
    super(TYPE);
  }

  @Override
  public RollbackResult rollback(RollbackRequest request) {
    return runChange(
        request.cluster(),
        request.dryRun(),
        () -> {
          RollbackRun run =
              new RollbackRun(
                  new RunContext(
                      new Activities(waitHeartbeatTimeout()), progress, this, request.cluster()),
                  request);
          RollbackPhases.RUNNER.run(run, progress);
          return run.result();
        });
  }
}
