package io.etcdrunbooks.worker;

import io.etcdrunbooks.activities.support.RunLiveness;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowTargetOptions;

/**
 * Asks Temporal whether a runbook run is still open; when Temporal does not answer, the run counts
 * as open.
 */
public final class TemporalRunLiveness implements RunLiveness {

  private final WorkflowClient client;

  public TemporalRunLiveness(WorkflowClient client) {
    this.client = client;
  }

  @Override
  public boolean isOpen(String workflowId, String runId) {
    try {
      WorkflowTargetOptions run =
          WorkflowTargetOptions.newBuilder().setWorkflowId(workflowId).setRunId(runId).build();
      return client.newUntypedWorkflowStub(run).describe().getStatus()
          == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;
    } catch (WorkflowNotFoundException e) {
      return false;
    } catch (RuntimeException e) {
      return true; // the activity's own completion will fail if Temporal is really gone
    }
  }
}
