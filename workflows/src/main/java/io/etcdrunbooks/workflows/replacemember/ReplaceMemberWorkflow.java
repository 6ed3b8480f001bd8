package io.etcdrunbooks.workflows.replacemember;

import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Runbook;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.util.List;

/**
 * Replaces a failed member: remove it, add the new member (learner then promote on 3.4 and later),
 * start it joining the existing cluster, record it in the inventory, then point every
 * kube-apiserver at the new set, one host at a time.
 */
@WorkflowInterface
public interface ReplaceMemberWorkflow extends Runbook {

  String TYPE = "ReplaceMember";

  /** Failure types the runbook ends with ({@link FailureType}). */
  List<FailureType> FAILURES =
      List.of(
          FailureType.WrongWorkflowId,
          FailureType.ReplaceRefused,
          FailureType.ReplacementJoinFailed,
          FailureType.ApiServerUpdateFailed,
          FailureType.PostflightFailed,
          FailureType.KubeadmConfigNotUpdated);

  @WorkflowMethod(name = TYPE)
  ReplaceMemberResult replace(ReplaceMemberRequest request);

  /**
   * The alert that started this runbook resolved: a runbook still waiting for approval ends without
   * touching anything; one already approved goes on (the member was down long enough to be
   * replaced).
   */
  @SignalMethod
  void alertResolved();

  /**
   * The cluster's change id ({@link io.etcdrunbooks.workflows.common.RunbookIds#changing}): no
   * replacement while another change runs.
   */
  static String workflowId(String cluster) {
    return io.etcdrunbooks.workflows.common.RunbookIds.changing(cluster);
  }
}
