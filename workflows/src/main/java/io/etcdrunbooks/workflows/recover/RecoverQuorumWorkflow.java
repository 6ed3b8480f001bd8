package io.etcdrunbooks.workflows.recover;

import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Runbook;
import io.etcdrunbooks.workflows.common.RunbookIds;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.util.List;

/**
 * Brings back a cluster that lost quorum: the loss confirmed over time, the survivor with the most
 * data chosen and what will be lost shown, an approval always, then the kube-apiservers stopped,
 * the survivor's data dir copied, the survivor rebuilt from it as a new cluster of one with its
 * revision raised ({@code etcdutl snapshot restore --bump-revision --mark-compacted}), every other
 * member rebuilt as a new member one at a time, the inventory and the apiservers following. With no
 * survivor, the newest verified backup is restored instead.
 */
@WorkflowInterface
public interface RecoverQuorumWorkflow extends Runbook {

  String TYPE = "RecoverQuorum";

  /** Failure types the runbook ends with ({@link FailureType}). */
  List<FailureType> FAILURES =
      List.of(
          FailureType.WrongWorkflowId,
          FailureType.RecoverRefused,
          FailureType.RecoverFailed,
          FailureType.PostflightFailed,
          FailureType.KubeadmConfigNotUpdated);

  @WorkflowMethod(name = TYPE)
  RecoverQuorumResult recover(RecoverQuorumRequest request);

  /** The cluster's change id ({@link RunbookIds#changing}). */
  static String workflowId(String cluster) {
    return RunbookIds.changing(cluster);
  }
}
