package io.etcdrunbooks.workflows.downgrade;

import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Runbook;
import io.etcdrunbooks.workflows.common.RunbookIds;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.util.List;

/**
 * etcd's online downgrade, one minor down (3.6 to 3.5, 3.7 to 3.6), without losing a write: etcd's
 * {@code downgrade validate} and {@code enable}, the storage version awaited, then every member
 * switched to the older binaries one at a time, the leader last. A member that fails cancels the
 * downgrade in etcd while the cluster is still mixed and puts the members switched so far back.
 */
@WorkflowInterface
public interface DowngradeClusterWorkflow extends Runbook {

  String TYPE = "DowngradeCluster";

  /** Failure types the runbook ends with ({@link FailureType}). */
  List<FailureType> FAILURES =
      List.of(
          FailureType.WrongWorkflowId,
          FailureType.DowngradeRefused,
          FailureType.DowngradeRolledBack,
          FailureType.DowngradeFailed,
          FailureType.PostflightFailed,
          FailureType.KubeadmConfigNotUpdated);

  @WorkflowMethod(name = TYPE)
  DowngradeResult downgrade(DowngradeRequest request);

  /**
   * The cluster's change id ({@link RunbookIds#changing}): no downgrade while another change runs.
   */
  static String workflowId(String cluster) {
    return RunbookIds.changing(cluster);
  }
}
