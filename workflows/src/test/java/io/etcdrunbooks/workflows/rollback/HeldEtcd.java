package io.etcdrunbooks.workflows.rollback;

import io.etcdrunbooks.workflows.activities.EtcdActivities;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.ConsistencyReport;
import io.etcdrunbooks.workflows.model.KeyspaceDigest;
import io.etcdrunbooks.workflows.model.KeyspaceHashes;
import io.etcdrunbooks.workflows.model.MemberStatus;
import io.etcdrunbooks.workflows.testing.FakeCluster;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The etcd activities of a {@link FakeCluster}, with two faults it does not have: no member
 * answering discovery, and one member's wait held until the test lets it go (to cancel a runbook
 * while a member is being switched).
 */
final class HeldEtcd implements EtcdActivities {

  private final FakeCluster cluster;
  private volatile boolean unreachable;
  private volatile String heldMember = "";
  final CountDownLatch held = new CountDownLatch(1);
  final CountDownLatch released = new CountDownLatch(1);

  HeldEtcd(FakeCluster cluster) {
    this.cluster = cluster;
    cluster.readyThrough(this);
  }

  /** Discovery fails as when no member answers (not retried here, to keep the test short). */
  HeldEtcd unreachable() {
    unreachable = true;
    return this;
  }

  /** The wait for this member to be ready holds until {@link #released} counts down. */
  HeldEtcd holdWaitFor(String member) {
    heldMember = member;
    return this;
  }

  @Override
  public ClusterState discover(ClusterRef ref) {
    if (unreachable)
      throw FailureType.MembersUnreachable.nonRetryable(
          "no member of cluster '" + ref.cluster() + "' answers");
    return cluster.discover(ref);
  }

  @Override
  public MemberStatus awaitMemberReady(AwaitMemberRequest request) {
    if (request.member().equals(heldMember)) {
      held.countDown();
      try {
        released.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    return cluster.awaitMemberReady(request);
  }

  @Override
  public ConsistencyReport checkConsistency(ClusterRef ref) {
    return cluster.checkConsistency(ref);
  }

  @Override
  public ConsistencyReport checkConsistencyAt(ConsistencyRequest request) {
    return cluster.checkConsistencyAt(request);
  }

  @Override
  public KeyspaceDigest keyspaceDigest(KeyspaceDigestRequest request) {
    return cluster.keyspaceDigest(request);
  }

  @Override
  public KeyspaceHashes keyspaceHashes(KeyspaceDigestRequest request) {
    return cluster.keyspaceHashes(request);
  }

  @Override
  public void moveLeader(MoveLeaderRequest request) {
    cluster.moveLeader(request);
  }

  @Override
  public String awaitClusterVersion(AwaitClusterVersionRequest request) {
    return cluster.awaitClusterVersion(request);
  }
}
