package io.etcdrunbooks.workflows.backup;

import io.etcdrunbooks.workflows.common.RunbookWorkflow;
import io.etcdrunbooks.workflows.model.BackupRecord;
import io.etcdrunbooks.workflows.phases.Activities;
import io.etcdrunbooks.workflows.phases.RunContext;

/** The BackupCluster runbook: its phases are in {@link BackupClusterPhases}, in order. */
public final class BackupClusterWorkflowImpl extends RunbookWorkflow
    implements BackupClusterWorkflow {

  public BackupClusterWorkflowImpl() {
    super(TYPE);
  }

  @Override
  public BackupRecord backup(BackupClusterRequest request) {
    return runFor(
        request.cluster(),
        () -> {
          BackupRun run =
              BackupRun.start(
                  new RunContext(
                      new Activities(waitHeartbeatTimeout()), progress, this, request.cluster()),
                  request);
          BackupClusterPhases.RUNNER.run(run, progress);
          return run.backup;
        });
  }
}
