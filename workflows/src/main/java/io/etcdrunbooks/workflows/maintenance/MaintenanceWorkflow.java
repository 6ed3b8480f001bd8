package io.etcdrunbooks.workflows.maintenance;

import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Runbook;
import io.etcdrunbooks.workflows.common.RunbookIds;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.util.List;

/**
 * Routine care of a cluster's databases: the history compacted to a chosen revision, members
 * defragmented one at a time (the leader last, leadership moved first), a NOSPACE alarm disarmed
 * once every database is back under its quota.
 */
@WorkflowInterface
public interface MaintenanceWorkflow extends Runbook {

  String TYPE = "Maintenance";

  /** Failure types the runbook ends with ({@link FailureType}). */
  List<FailureType> FAILURES =
      List.of(
          FailureType.WrongWorkflowId,
          FailureType.MaintenanceRefused,
          FailureType.MaintenanceFailed,
          FailureType.PostflightFailed);

  @WorkflowMethod(name = TYPE)
  MaintenanceResult maintain(MaintenanceRequest request);

  /**
   * The cluster's change id ({@link RunbookIds#changing}): a defragmentation never overlaps an
   * upgrade's restarts.
   */
  static String workflowId(String cluster) {
    return RunbookIds.changing(cluster);
  }
}
