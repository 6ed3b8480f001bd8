package io.etcdrunbooks.workflows.scale;

import io.etcdrunbooks.workflows.common.RunbookWorkflow;
import io.etcdrunbooks.workflows.phases.Activities;
import io.etcdrunbooks.workflows.phases.RunContext;

/** The ScaleCluster runbook: its phases are in {@link ScalePhases}, in order. */
public final class ScaleClusterWorkflowImpl extends RunbookWorkflow
    implements ScaleClusterWorkflow {

  public ScaleClusterWorkflowImpl() {
    super(TYPE);
  }

  @Override
  public ScaleClusterResult scale(ScaleClusterRequest request) {
    return runChange(
        request.cluster(),
        request.dryRun(),
        () -> {
          ScaleRun run =
              new ScaleRun(
                  new RunContext(
                      new Activities(waitHeartbeatTimeout()), progress, this, request.cluster()),
                  request);
          ScalePhases.RUNNER.run(run, progress);
          return run.result();
        });
  }
}
