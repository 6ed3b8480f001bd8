package io.etcdrunbooks.api;

import io.etcdrunbooks.runtime.RunbooksConfig;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.Progress;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.TaskQueueType;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.query.v1.WorkflowQuery;
import io.temporal.api.taskqueue.v1.TaskQueue;
import io.temporal.api.workflow.v1.PendingActivityInfo;
import io.temporal.api.workflowservice.v1.DescribeTaskQueueRequest;
import io.temporal.api.workflowservice.v1.QueryWorkflowRequest;
import io.temporal.api.workflowservice.v1.QueryWorkflowResponse;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionDescription;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowStub;
import jakarta.inject.Singleton;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A runbook as Temporal stores it, answered within a few seconds whether or not a worker runs:
 * status and pending steps from the server, the live progress from a query only when a worker
 * answers it in time, and the result or failure of a finished one. A query waits for a worker, so
 * without one it would hang; it is bounded here and the answer says that no worker answered.
 */
@Singleton
public final class RunbookReader {

  static final long QUERY_SECONDS = 2;

  private final WorkflowClient client;
  private final RunbooksConfig config;

  public RunbookReader(WorkflowClient client, RunbooksConfig config) {
    this.client = client;
    this.config = config;
  }

  public RunbookView read(String workflowId) {
    WorkflowStub stub = client.newUntypedWorkflowStub(workflowId);
    WorkflowExecutionDescription description = stub.describe();
    WorkflowExecutionStatus status = description.getStatus();
    String taskQueue =
        description.getRawDescription().getExecutionConfig().getTaskQueue().getName();
    List<String> pending =
        description.getRawDescription().getPendingActivitiesList().stream()
            .map(RunbookReader::pending)
            .toList();
    Optional<Progress> progress = Optional.empty();
    String worker = null;
    if (noPollers(taskQueue)) {
      worker =
          "no worker is polling task queue "
              + taskQueue
              + ": the runbook makes no progress until one starts";
    } else {
      progress = query(workflowId);
      if (progress.isEmpty()) {
        worker =
            "no worker answered the progress query within "
                + QUERY_SECONDS
                + " s: is a worker polling task queue "
                + taskQueue
                + " ("
                + config.taskQueue()
                + " is this API's)? Status and pending steps are Temporal's own";
      }
    }
    Object result = null;
    String failure = null;
    if (status != WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) {
      try {
        result = stub.getResult(1, TimeUnit.SECONDS, Map.class);
      } catch (WorkflowFailedException e) {
        failure = Failures.rootMessage(e);
      } catch (TimeoutException e) {
        failure = null;
      }
    }
    return new RunbookView(
        workflowId,
        status.name().replace("WORKFLOW_EXECUTION_STATUS_", ""),
        progress.orElse(null),
        pending,
        worker,
        result,
        failure);
  }

  /**
   * True only when the server says no worker polled the queue lately; false when it cannot tell
   * (the test server).
   */
  private boolean noPollers(String taskQueue) {
    try {
      return client
              .getWorkflowServiceStubs()
              .blockingStub()
              .withDeadlineAfter(1, TimeUnit.SECONDS)
              .describeTaskQueue(
                  DescribeTaskQueueRequest.newBuilder()
                      .setNamespace(client.getOptions().getNamespace())
                      .setTaskQueue(TaskQueue.newBuilder().setName(taskQueue))
                      .setTaskQueueType(TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW)
                      .build())
              .getPollersCount()
          == 0;
    } catch (StatusRuntimeException e) {
      return false;
    }
  }

  private Optional<Progress> query(String workflowId) {
    return query(workflowId, "progress", Progress.class);
  }

  /**
   * A query of the workflow's latest run, answered by a worker within {@link #QUERY_SECONDS}; empty
   * when none answers in time (or the answer cannot be decoded here). An unknown workflow throws
   * {@link StatusRuntimeException} NOT_FOUND.
   */
  public <T> Optional<T> query(String workflowId, String queryType, Class<T> type) {
    try {
      QueryWorkflowResponse answer =
          client
              .getWorkflowServiceStubs()
              .blockingStub()
              .withDeadlineAfter(QUERY_SECONDS, TimeUnit.SECONDS)
              .queryWorkflow(
                  QueryWorkflowRequest.newBuilder()
                      .setNamespace(client.getOptions().getNamespace())
                      .setExecution(WorkflowExecution.newBuilder().setWorkflowId(workflowId))
                      .setQuery(WorkflowQuery.newBuilder().setQueryType(queryType))
                      .build());
      if (!answer.hasQueryResult()) return Optional.empty();
      return Optional.ofNullable(
          client
              .getOptions()
              .getDataConverter()
              .fromPayloads(0, Optional.of(answer.getQueryResult()), type, type));
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.DEADLINE_EXCEEDED
          || e.getStatus().getCode() == Status.Code.UNAVAILABLE
          || e.getStatus().getCode() == Status.Code.FAILED_PRECONDITION) {
        return Optional.empty();
      }
      throw e;
    } catch (RuntimeException e) {
      return Optional
          .empty(); // an answer this process cannot decode (another payload key): the rest still
      // stands
    }
  }

  private static String pending(PendingActivityInfo activity) {
    String failure =
        activity.hasLastFailure()
            ? ": last attempt failed: " + activity.getLastFailure().getMessage()
            : "";
    return activity.getActivityType().getName()
        + " ("
        + activity
            .getState()
            .name()
            .replace("PENDING_ACTIVITY_STATE_", "")
            .toLowerCase(java.util.Locale.ROOT)
        + ", attempt "
        + activity.getAttempt()
        + failure
        + ")";
  }

  /**
   * @param progress the live progress, null when no worker answered in time
   * @param pendingSteps the runbook's steps under way as Temporal records them: activity, state,
   *     attempt, last failure
   * @param worker why the progress is missing, null when a worker answered
   */
  public record RunbookView(
      String workflowId,
      String status,
      Progress progress,
      List<String> pendingSteps,
      String worker,
      Object result,
      String failure) {}
}
