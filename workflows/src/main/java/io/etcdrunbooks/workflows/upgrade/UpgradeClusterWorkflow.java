package io.etcdrunbooks.workflows.upgrade;

import io.etcdrunbooks.workflows.common.Runbook;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * Rolling upgrade of an etcd cluster, one minor version at a time, followers first and the leader
 * last.
 */
@WorkflowInterface
public interface UpgradeClusterWorkflow extends Runbook {

  String TYPE = "UpgradeCluster";

  /** Failure types the runbook ends with ({@link io.etcdrunbooks.workflows.common.FailureType}). */
  java.util.List<io.etcdrunbooks.workflows.common.FailureType> FAILURES =
      java.util.List.of(
          io.etcdrunbooks.workflows.common.FailureType.WrongWorkflowId,
              io.etcdrunbooks.workflows.common.FailureType.PreflightRefused,
          io.etcdrunbooks.workflows.common.FailureType.UpgradeHalted,
              io.etcdrunbooks.workflows.common.FailureType.UpgradeRolledBack,
          io.etcdrunbooks.workflows.common.FailureType.UpgradeRollbackFailed,
              io.etcdrunbooks.workflows.common.FailureType.PostflightFailed);

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
