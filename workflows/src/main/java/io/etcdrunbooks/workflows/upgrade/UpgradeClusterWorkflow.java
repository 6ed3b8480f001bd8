package io.etcdrunbooks.workflows.upgrade;

import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Runbook;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.util.List;

/**
 * Rolling upgrade of an etcd cluster, one minor version at a time, followers first and the leader
 * last.
 */
@WorkflowInterface
public interface UpgradeClusterWorkflow extends Runbook {

  String TYPE = "UpgradeCluster";

  /** Failure types the runbook ends with ({@link FailureType}). */
  List<FailureType> FAILURES =
      List.of(
          FailureType.WrongWorkflowId,
          FailureType.PreflightRefused,
          FailureType.ImagePullFailed,
          FailureType.UpgradeHalted,
          FailureType.UpgradeRolledBack,
          FailureType.UpgradeRollbackFailed,
          FailureType.UpgradedMemberDegraded,
          FailureType.PostflightFailed,
          FailureType.KubeadmConfigNotUpdated);

  @WorkflowMethod(name = TYPE)
  UpgradeResult upgrade(UpgradeRequest request);

  /**
   * The cluster's change id ({@link io.etcdrunbooks.workflows.common.RunbookIds#changing}): no
   * upgrade while another change runs.
   */
  static String workflowId(String cluster) {
    return io.etcdrunbooks.workflows.common.RunbookIds.changing(cluster);
  }
}
