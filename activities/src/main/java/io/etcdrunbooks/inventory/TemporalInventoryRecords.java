package io.etcdrunbooks.inventory;

import io.etcdrunbooks.workflows.inventory.InventoryRecord;
import io.etcdrunbooks.workflows.inventory.InventoryRecordWorkflow;
import io.etcdrunbooks.workflows.inventory.RecordChange;
import io.temporal.api.enums.v1.QueryRejectCondition;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionAlreadyStarted;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowQueryRejectedException;
import io.temporal.client.WorkflowUpdateException;
import java.util.Optional;

/**
 * Each cluster's record in Temporal: a long-running {@link InventoryRecordWorkflow} per cluster on
 * the runbooks' task queue, started by the first change, read through its query and changed through
 * its update. Temporal runs one update handler of a workflow at a time and its validator refuses a
 * change made on an older version, so two workers never lose each other's change, and nothing but
 * Temporal is shared between them.
 */
public final class TemporalInventoryRecords implements InventoryRecords {

  private final WorkflowClient client;
  private final String taskQueue;

  /**
   * @param client the worker's client; a record read from a workflow that is no longer running (an
   *     operator terminated it) counts as none
   * @param taskQueue where the record workflows run: the runbooks' task queue, whose workers answer
   *     the queries
   */
  public TemporalInventoryRecords(WorkflowClient client, String taskQueue) {
    this.client =
        WorkflowClient.newInstance(
            client.getWorkflowServiceStubs(),
            client.getOptions().toBuilder()
                .setQueryRejectCondition(QueryRejectCondition.QUERY_REJECT_CONDITION_NOT_OPEN)
                .build());
    this.taskQueue = taskQueue;
  }

  @Override
  public InventoryRecord read(String cluster) {
    try {
      return stub(cluster).record();
    } catch (WorkflowNotFoundException | WorkflowQueryRejectedException e) {
      return InventoryRecord.none();
    }
  }

  @Override
  public Optional<InventoryRecord> replace(
      String cluster, long onVersion, String content, String by) {
    RecordChange change = new RecordChange(onVersion, content, by);
    try {
      return Optional.of(stub(cluster).change(change));
    } catch (WorkflowNotFoundException e) {
      start(cluster);
      return onVersion == 0 ? replaceStarted(cluster, change) : Optional.empty();
    } catch (WorkflowUpdateException e) {
      // refused on an older version, or the run went on as a new one meanwhile: read again
      return Optional.empty();
    }
  }

  private Optional<InventoryRecord> replaceStarted(String cluster, RecordChange change) {
    try {
      return Optional.of(stub(cluster).change(change));
    } catch (WorkflowUpdateException | WorkflowNotFoundException e) {
      return Optional.empty();
    }
  }

  private void start(String cluster) {
    InventoryRecordWorkflow keeper =
        client.newWorkflowStub(
            InventoryRecordWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(InventoryRecordWorkflow.workflowId(cluster))
                .setTaskQueue(taskQueue)
                .build());
    try {
      WorkflowClient.start(keeper::keep, InventoryRecord.none());
    } catch (WorkflowExecutionAlreadyStarted e) {
      // another worker's first change started it: the same record
    }
  }

  private InventoryRecordWorkflow stub(String cluster) {
    return client.newWorkflowStub(
        InventoryRecordWorkflow.class, InventoryRecordWorkflow.workflowId(cluster));
  }

  @Override
  public String location(String cluster) {
    return "Temporal workflow "
        + InventoryRecordWorkflow.workflowId(cluster)
        + " (namespace "
        + client.getOptions().getNamespace()
        + ")";
  }

  @Override
  public String forgetCommand(String cluster) {
    return "temporal workflow update execute --namespace "
        + client.getOptions().getNamespace()
        + " --workflow-id "
        + InventoryRecordWorkflow.workflowId(cluster)
        + " --name "
        + InventoryRecordWorkflow.FORGET_UPDATE;
  }
}
