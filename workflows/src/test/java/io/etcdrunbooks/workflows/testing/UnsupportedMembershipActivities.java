package io.etcdrunbooks.workflows.testing;

import io.etcdrunbooks.workflows.activities.MembershipActivities;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.EtcdMember;
import io.etcdrunbooks.workflows.model.MemberStatus;
import java.util.List;

/**
 * {@link MembershipActivities} with every method throwing: a fake implements this and overrides
 * only what its runbook calls, so a call it does not expect fails naming the method. A fake that
 * still declares a stub of its own compiles too; a method added to the interface gets its default
 * here.
 */
public interface UnsupportedMembershipActivities extends MembershipActivities {

  @Override
  default EtcdMember addMember(AddMemberRequest request) {
    throw new UnsupportedOperationException("MembershipActivities.addMember is not faked here");
  }

  @Override
  default MemberStatus awaitNewMemberReady(AwaitNewMemberRequest request) {
    throw new UnsupportedOperationException(
        "MembershipActivities.awaitNewMemberReady is not faked here");
  }

  @Override
  default List<EtcdMember> listMembers(ClusterRef cluster) {
    throw new UnsupportedOperationException("MembershipActivities.listMembers is not faked here");
  }

  @Override
  default EtcdMember promoteMember(PromoteMemberRequest request) {
    throw new UnsupportedOperationException("MembershipActivities.promoteMember is not faked here");
  }

  @Override
  default long removeMember(RemoveMemberRequest request) {
    throw new UnsupportedOperationException("MembershipActivities.removeMember is not faked here");
  }

  @Override
  default boolean updatePeerUrl(UpdatePeerUrlRequest request) {
    throw new UnsupportedOperationException("MembershipActivities.updatePeerUrl is not faked here");
  }
}
