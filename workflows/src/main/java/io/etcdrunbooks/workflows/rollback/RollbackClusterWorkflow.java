package io.etcdrunbooks.workflows.rollback;

import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Runbook;
import io.etcdrunbooks.workflows.common.RunbookIds;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.util.List;

/**
 * Returns the members of a mixed cluster (an upgrade stopped part-way, cluster version not moved)
 * to the old version, one at a time, leader last; no data is lost. Once the cluster version has
 * moved, only a restore of the pre-upgrade backup with the old binaries goes back: with {@code
 * acknowledgeDataLoss} this runbook runs the RestoreCluster runbook as its child for that, and
 * reports the revisions lost.
 */
@WorkflowInterface
public interface RollbackClusterWorkflow extends Runbook {

  String TYPE = "RollbackCluster";

  /**
   * Failure types the runbook ends with ({@link FailureType}); a failed restore child ends it as
   * RollbackFailed, the restore's own type as its cause.
   */
  List<FailureType> FAILURES =
      List.of(
          FailureType.WrongWorkflowId,
          FailureType.RollbackRefused,
          FailureType.RollbackFailed,
          FailureType.PostflightFailed,
          FailureType.KubeadmConfigNotUpdated);

  @WorkflowMethod(name = TYPE)
  RollbackResult rollback(RollbackRequest request);

  /**
   * The cluster's change id ({@link RunbookIds#changing}): no rollback while another change runs.
   */
  static String workflowId(String cluster) {
    return RunbookIds.changing(cluster);
  }
}
