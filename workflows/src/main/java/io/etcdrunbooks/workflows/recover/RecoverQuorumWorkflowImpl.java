package io.etcdrunbooks.workflows.recover;

import io.etcdrunbooks.workflows.common.RunbookWorkflow;
import io.etcdrunbooks.workflows.phases.Activities;
import io.etcdrunbooks.workflows.phases.RunContext;

/** The RecoverQuorum runbook: its phases are in {@link RecoverPhases}, in order. */
public final class RecoverQuorumWorkflowImpl extends RunbookWorkflow
    implements RecoverQuorumWorkflow {

  public RecoverQuorumWorkflowImpl() {
    super(TYPE);
  }

  @Override
  public RecoverQuorumResult recover(RecoverQuorumRequest request) {
    return runChange(
        request.cluster(),
        request.dryRun(),
        () -> {
          RecoverRun run =
              new RecoverRun(
                  new RunContext(
                      new Activities(waitHeartbeatTimeout()), progress, this, request.cluster()),
                  request);
          RecoverPhases.RUNNER.run(run, progress);
          return run.result();
        });
  }
}
