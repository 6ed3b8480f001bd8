package io.etcdrunbooks.workflows.inventory;

import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.UpdateMethod;
import io.temporal.workflow.UpdateValidatorMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * Keeps what runbooks record about one cluster (members, tombstones, URLs, client TLS) while the
 * operator's inventory file stays read-only: one long-running workflow per cluster ({@link
 * #workflowId}), changed by compare-and-swap through {@link #change} (Temporal runs one handler at
 * a time, so a change made on the version it names is never lost), read through {@link #record}.
 * Not a runbook: it changes nothing outside itself. See docs/inventory-store.md.
 */
@WorkflowInterface
public interface InventoryRecordWorkflow {

  String TYPE = "InventoryRecord";
  String CHANGE_UPDATE = "change";
  String FORGET_UPDATE = "forget";
  String ID_PREFIX = "etcd-runbooks-inventory-";

  /** Runs until its history is long enough, then goes on as a new run with the record. */
  @WorkflowMethod(name = TYPE)
  void keep(InventoryRecord record);

  /** The record as it is now. */
  @QueryMethod
  InventoryRecord record();

  /**
   * Replaces the record.
   *
   * @return the record now, with its new version
   */
  @UpdateMethod(name = CHANGE_UPDATE)
  InventoryRecord change(RecordChange change);

  /** Refuses, before anything enters the history, a change made on another version. */
  @UpdateValidatorMethod(updateName = CHANGE_UPDATE)
  void validateChange(RecordChange change);

  /**
   * Drops the record, so that the operator's entry in the inventory file stands alone again: what
   * an operator runs after editing {@code members} by hand.
   */
  @UpdateMethod(name = FORGET_UPDATE)
  InventoryRecord forget();

  static String workflowId(String cluster) {
    return ID_PREFIX + cluster;
  }

  /**
   * Where the records run beside the runbooks' task queue: polled by a worker without Worker
   * Versioning, so that any worker version answers them and a record never waits for a drained
   * version's workers.
   */
  static String taskQueue(String runbooksTaskQueue) {
    return runbooksTaskQueue + "-inventory";
  }
}
