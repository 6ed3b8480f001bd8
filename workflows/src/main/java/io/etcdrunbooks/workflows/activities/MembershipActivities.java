package io.etcdrunbooks.workflows.activities;

import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.EtcdMember;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.model.MemberStatus;
import io.temporal.activity.ActivityInterface;
import java.util.List;

/**
 * Changes to a cluster's membership through the etcd API. Members are named by peer URL, which etcd
 * knows from the moment a member is added (its name only once it has started). Every call reads the
 * member list first and does nothing that is already done.
 */
@ActivityInterface
public interface MembershipActivities {

  /** etcd's member list, as the cluster reports it (not the inventory). */
  List<EtcdMember> listMembers(ClusterRef cluster);

  /**
   * Removes the member with this peer URL; returns its id, or 0 when no member has it (already
   * removed). Refuses, as a non-retryable failure, to remove the last voting member.
   */
  long removeMember(RemoveMemberRequest request);

  /**
   * Adds a member with this peer URL, as a learner when asked; returns it. When a member with that
   * peer URL already exists it is returned as it is.
   */
  EtcdMember addMember(AddMemberRequest request);

  /**
   * Promotes the learner with this peer URL to a voting member, retrying while etcd says it is not
   * yet in sync with the leader (heartbeating), bounded by the timeout. Does nothing when it
   * already votes.
   */
  EtcdMember promoteMember(PromoteMemberRequest request);

  /**
   * Heartbeats until the new member, reached at its client URL, reports the version, sees a leader
   * and is within a few raft entries of it.
   */
  MemberStatus awaitNewMemberReady(AwaitNewMemberRequest request);

  /**
   * Sets the member's advertised peer URL ({@code etcdctl member update}), found by name. Returns
   * false, changing nothing, when it advertises exactly that URL already.
   */
  boolean updatePeerUrl(UpdatePeerUrlRequest request);

  record UpdatePeerUrlRequest(String cluster, String member, String peerUrl) {}

  record RemoveMemberRequest(String cluster, String peerUrl) {}

  record AddMemberRequest(String cluster, String peerUrl, boolean learner) {}

  record PromoteMemberRequest(String cluster, String peerUrl, int timeoutSeconds) {}

  record AwaitNewMemberRequest(
      String cluster, MemberPlacement member, String expectedVersion, int timeoutSeconds) {}
}
