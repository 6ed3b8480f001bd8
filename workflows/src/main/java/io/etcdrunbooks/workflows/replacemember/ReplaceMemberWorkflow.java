package io.etcdrunbooks.workflows.replacemember;

import io.etcdrunbooks.workflows.common.Runbook;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * Replaces a failed member: remove it, add the new member (learner then promote on 3.4 and later), start it joining
 * the existing cluster, record it in the inventory, then point every kube-apiserver at the new set, one host at a time.
 */
@WorkflowInterface
public interface ReplaceMemberWorkflow extends Runbook {

  String TYPE = "ReplaceMember";

  /** Failure types the runbook ends with. */
  String REFUSED = "ReplaceRefused";
  String JOIN_FAILED = "ReplacementJoinFailed";
  String APISERVER_FAILED = "ApiServerUpdateFailed";
  String POSTFLIGHT_FAILED = "PostflightFailed";

  @WorkflowMethod(name = TYPE)
  ReplaceMemberResult replace(ReplaceMemberRequest request);

  /** Lets a runbook started with requireApproval go past preflight. */
  @SignalMethod
  void approve(String approvedBy);

  /**
   * The alert that started this runbook resolved: a runbook still waiting for approval ends without touching
   * anything; one already approved goes on (the member was down long enough to be replaced).
   */
  @SignalMethod
  void alertResolved();

  /** One runbook per member at a time, so repeated deliveries of one alert start one runbook. */
  static String workflowId(String cluster, String member) {
    return "replace-member-" + cluster + "-" + member;
  }
}
