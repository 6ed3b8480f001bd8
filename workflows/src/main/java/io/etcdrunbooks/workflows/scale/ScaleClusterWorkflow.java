package io.etcdrunbooks.workflows.scale;

import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Runbook;
import io.etcdrunbooks.workflows.common.RunbookIds;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.util.List;

/**
 * Changes the number of members, one member at a time: new members join as learners and are
 * promoted once in sync (3.4 and later; 3.3 adds voting members), every kube-apiserver is pointed
 * at the new set, and members are removed followers first, leadership moved off a member before it
 * goes; a quorum guard before every step, the inventory recorded after each.
 */
@WorkflowInterface
public interface ScaleClusterWorkflow extends Runbook {

  String TYPE = "ScaleCluster";

  /** Failure types the runbook ends with ({@link FailureType}). */
  List<FailureType> FAILURES =
      List.of(
          FailureType.WrongWorkflowId,
          FailureType.ScaleRefused,
          FailureType.ScaleFailed,
          FailureType.ApiServerUpdateFailed,
          FailureType.PostflightFailed,
          FailureType.KubeadmConfigNotUpdated);

  @WorkflowMethod(name = TYPE)
  ScaleClusterResult scale(ScaleClusterRequest request);

  /** The cluster's change id ({@link RunbookIds#changing}): one membership change at a time. */
  static String workflowId(String cluster) {
    return RunbookIds.changing(cluster);
  }
}
