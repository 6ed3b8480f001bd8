package io.etcdrunbooks.workflows.drill;

import io.etcdrunbooks.workflows.common.RunbookWorkflow;
import io.etcdrunbooks.workflows.phases.Activities;
import io.etcdrunbooks.workflows.phases.RunContext;
import io.temporal.workflow.CancellationScope;

/** The RestoreDrill runbook: its phases are in {@link DrillPhases}, in order. */
public final class RestoreDrillWorkflowImpl extends RunbookWorkflow
    implements RestoreDrillWorkflow {

  private final Activities activities = new Activities();

  public RestoreDrillWorkflowImpl() {
    super(TYPE);
  }

  @Override
  public RestoreDrillResult drill(RestoreDrillRequest request) {
    return runFor(
        request.cluster(),
        () -> {
          DrillRun run =
              DrillRun.start(
                  new RunContext(activities, progress, this, request.cluster()), request);
          try {
            DrillPhases.RUNNER.run(run, progress);
          } catch (RuntimeException e) {
            // a cancelled drill proved nothing either way: no outcome
            if (!CancellationScope.current().isCancelRequested()) DrillPhases.recordFailure(run);
            throw e;
          }
          return run.result;
        });
  }
}
