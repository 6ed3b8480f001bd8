package io.etcdrunbooks.workflows.drill;

import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Runbook;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.util.List;

/**
 * Proves a backup restorable without touching the cluster: restored on the worker, served by a
 * throwaway etcd of its version, and compared with what the backup recorded.
 */
@WorkflowInterface
public interface RestoreDrillWorkflow extends Runbook {

  String TYPE = "RestoreDrill";

  /** Failure types the runbook ends with ({@link FailureType}): its steps' own, unwrapped. */
  List<FailureType> FAILURES =
      List.of(
          FailureType.UnknownCluster,
          FailureType.InvalidRequest,
          FailureType.BackupCorrupt,
          FailureType.BackupKeyUnusable,
          FailureType.RestoreDrillFailed);

  @WorkflowMethod(name = TYPE)
  RestoreDrillResult drill(RestoreDrillRequest request);

  /** One drill per cluster at a time. */
  static String workflowId(String cluster) {
    return "restore-drill-" + cluster;
  }
}
