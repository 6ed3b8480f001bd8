package io.etcdrunbooks.runtime.visibility;

import io.etcdrunbooks.workflows.common.Progress;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowStub;
import io.temporal.client.WorkflowTargetOptions;

/**
 * A listed run's progress, asked only while it runs: a list can still show a run that has ended,
 * and a query to an ended run waits for a worker to replay it.
 *
 * @param ended the run has ended since it was listed
 * @param progress its progress; null when it has ended or could not be read now (its worker busy)
 */
public record RunningProgress(boolean ended, Progress progress) {

  public static RunningProgress of(WorkflowClient client, WorkflowExecution run) {
    try {
      WorkflowStub stub =
          client.newUntypedWorkflowStub(
              WorkflowTargetOptions.newBuilder().setWorkflowExecution(run).build());
      if (stub.describe().getStatus() != WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING)
        return new RunningProgress(true, null);
      return new RunningProgress(false, stub.query("progress", Progress.class));
    } catch (RuntimeException e) {
      return new RunningProgress(false, null);
    }
  }
}
