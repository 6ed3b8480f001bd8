package io.etcdrunbooks.workflows.replacemember;

import io.etcdrunbooks.workflows.common.RunbookWorkflow;
import io.etcdrunbooks.workflows.phases.Activities;
import io.etcdrunbooks.workflows.phases.RunContext;

/** The ReplaceMember runbook: its phases are in {@link ReplacePhases}, in order. */
public final class ReplaceMemberWorkflowImpl extends RunbookWorkflow
    implements ReplaceMemberWorkflow {

  private boolean alertResolved;

  public ReplaceMemberWorkflowImpl() {
    super(TYPE);
  }

  @Override
  public ReplaceMemberResult replace(ReplaceMemberRequest request) {
    return runChange(
        request.cluster(),
        request.dryRun(),
        () -> {
          ReplaceRun run =
              new ReplaceRun(
                  new RunContext(
                      new Activities(waitHeartbeatTimeout()), progress, this, request.cluster()),
                  request,
                  () -> alertResolved);
          ReplacePhases.RUNNER.run(run, progress);
          return run.result();
        });
  }

  @Override
  public void alertResolved() {
    alertResolved = true;
    if (!approved()) progress.message("the alert resolved before approval");
  }
}
