package io.etcdrunbooks.workflows.replacemember;

import io.etcdrunbooks.workflows.model.MemberPlacement;
import java.util.List;

/**
 * Outcome of a ReplaceMember runbook.
 *
 * @param cluster cluster name
 * @param outcome REPLACED, DRY_RUN or CANCELLED (an alert resolved before approval)
 * @param failedMember the member replaced
 * @param removedMemberId etcd id of the removed member, hex (empty when it was already gone)
 * @param newMember where the new member runs
 * @param newMemberId etcd id of the new member, hex (empty when none was added)
 * @param joinedAsLearner the new member joined as a learner and was promoted (etcd 3.4 and later)
 * @param members etcd's member names at the end
 * @param apiServersUpdated control-plane hosts whose --etcd-servers changed
 * @param notes what else the runbook saw
 */
public record ReplaceMemberResult(
    String cluster,
    String outcome,
    String failedMember,
    String removedMemberId,
    MemberPlacement newMember,
    String newMemberId,
    boolean joinedAsLearner,
    List<String> members,
    List<String> apiServersUpdated,
    List<String> notes) {

  public static final String REPLACED = "REPLACED";
  public static final String DRY_RUN = "DRY_RUN";
  public static final String CANCELLED = "CANCELLED";
}
