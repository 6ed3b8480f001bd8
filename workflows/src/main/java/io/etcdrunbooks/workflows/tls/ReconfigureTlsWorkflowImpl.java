package io.etcdrunbooks.workflows.tls;

import io.etcdrunbooks.workflows.common.RunbookWorkflow;
import io.etcdrunbooks.workflows.phases.Activities;
import io.etcdrunbooks.workflows.phases.RunContext;

/** The ReconfigureTls runbook: its phases are in {@link TlsPhases}, in order. */
public final class ReconfigureTlsWorkflowImpl extends RunbookWorkflow
    implements ReconfigureTlsWorkflow {

  public ReconfigureTlsWorkflowImpl() {
    super(TYPE);
  }

  @Override
  public ReconfigureTlsResult reconfigure(ReconfigureTlsRequest request) {
    return runChange(
        request.cluster(),
        request.dryRun(),
        () -> {
          TlsRun run =
              new TlsRun(
                  new RunContext(
                      new Activities(waitHeartbeatTimeout()), progress, this, request.cluster()),
                  request,
                  this::needApprovalAgain);
          TlsPhases.RUNNER.run(run, progress);
          return run.result();
        });
  }
}
