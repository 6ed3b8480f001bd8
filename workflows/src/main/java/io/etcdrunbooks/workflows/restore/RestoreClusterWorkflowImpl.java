package io.etcdrunbooks.workflows.restore;

import io.etcdrunbooks.workflows.common.RunbookWorkflow;
import io.etcdrunbooks.workflows.phases.Activities;
import io.etcdrunbooks.workflows.phases.RunContext;

/** The RestoreCluster runbook: its phases are in {@link RestorePhases}, in order. */
public final class RestoreClusterWorkflowImpl extends RunbookWorkflow
    implements RestoreClusterWorkflow {

  public RestoreClusterWorkflowImpl() {
    super(TYPE);
  }

  @Override
  public RestoreResult restore(RestoreRequest request) {
    return runChange(
        request.cluster(),
        request.dryRun(),
        () -> {
          RestoreRun run =
              new RestoreRun(
                  new RunContext(
                      new Activities(waitHeartbeatTimeout()), progress, this, request.cluster()),
                  request);
          RestorePhases.RUNNER.run(run, progress);
          return run.result();
        });
  }
}
