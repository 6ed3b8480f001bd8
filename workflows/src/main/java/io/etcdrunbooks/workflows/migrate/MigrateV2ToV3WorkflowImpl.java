package io.etcdrunbooks.workflows.migrate;

import io.etcdrunbooks.workflows.common.RunbookWorkflow;
import io.etcdrunbooks.workflows.phases.Activities;
import io.etcdrunbooks.workflows.phases.RunContext;

/** The MigrateV2ToV3 runbook: its phases are in {@link MigratePhases}, in order. */
public final class MigrateV2ToV3WorkflowImpl extends RunbookWorkflow
    implements MigrateV2ToV3Workflow {

  public MigrateV2ToV3WorkflowImpl() {
    super(TYPE);
  }

  @Override
  public MigrateResult migrate(MigrateRequest request) {
    return runChange(
        request.cluster(),
        request.dryRun(),
        () -> {
          MigrateRun run =
              new MigrateRun(
                  new RunContext(
                      new Activities(waitHeartbeatTimeout()), progress, this, request.cluster()),
                  request);
          MigratePhases.RUNNER.run(run, progress);
          return run.result();
        });
  }
}
