package io.etcdrunbooks.api;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.common.v1.Payloads;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.workflowservice.v1.GetWorkflowExecutionHistoryRequest;
import io.temporal.client.WorkflowClient;
import jakarta.inject.Singleton;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The cluster a runbook acts on, read from the input it was started with (the first event of its
 * history), whoever started it and under whatever id: the runbook acts on that cluster and no
 * other. Needs no worker.
 */
@Singleton
public final class RunbookClusters {

  private static final long DEADLINE_SECONDS = 5;

  private final WorkflowClient client;

  public RunbookClusters(WorkflowClient client) {
    this.client = client;
  }

  /**
   * The cluster of the runbook's latest run; empty when there is no such runbook or its input names
   * none.
   */
  public Optional<String> clusterOf(String workflowId) {
    return clusterOf(workflowId, "");
  }

  /** The cluster of one run ({@code runId} empty: the latest). */
  public Optional<String> clusterOf(String workflowId, String runId) {
    GetWorkflowExecutionHistoryRequest request =
        GetWorkflowExecutionHistoryRequest.newBuilder()
            .setNamespace(client.getOptions().getNamespace())
            .setExecution(WorkflowExecution.newBuilder().setWorkflowId(workflowId).setRunId(runId))
            .setMaximumPageSize(1)
            .build();
    List<HistoryEvent> events;
    try {
      events =
          client
              .getWorkflowServiceStubs()
              .blockingStub()
              .withDeadlineAfter(DEADLINE_SECONDS, TimeUnit.SECONDS)
              .getWorkflowExecutionHistory(request)
              .getHistory()
              .getEventsList();
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.NOT_FOUND
          || e.getStatus().getCode() == Status.Code.INVALID_ARGUMENT) {
        return Optional.empty();
      }
      throw e;
    }
    if (events.isEmpty() || !events.get(0).hasWorkflowExecutionStartedEventAttributes())
      return Optional.empty();
    Payloads input = events.get(0).getWorkflowExecutionStartedEventAttributes().getInput();
    if (input.getPayloadsCount() == 0) return Optional.empty();
    try {
      Map<?, ?> fields =
          client
              .getOptions()
              .getDataConverter()
              .fromPayloads(0, Optional.of(input), Map.class, Map.class);
      Object cluster = fields == null ? null : fields.get("cluster");
      return cluster instanceof String name && !name.isBlank()
          ? Optional.of(name)
          : Optional.empty();
    } catch (RuntimeException e) {
      return Optional
          .empty(); // not a runbook's input (another workflow type, or a key this process lacks)
    }
  }
}
