package io.etcdrunbooks.workflows.activities;

import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.ConsistencyReport;
import io.etcdrunbooks.workflows.model.KeyspaceDigest;
import io.etcdrunbooks.workflows.model.KeyspaceHashes;
import io.etcdrunbooks.workflows.model.MemberStatus;
import io.temporal.activity.ActivityInterface;
import java.util.List;

/** Everything the runbooks ask of etcd through its API. Read-only but for {@link #moveLeader}. */
@ActivityInterface
public interface EtcdActivities {

  /**
   * Members, ids, leader, versions, DB size, raft index, cluster version and alarms. Fails as
   * UnknownCluster.
   */
  ClusterState discover(ClusterRef cluster);

  /**
   * Waits (bounded) for raft indexes to converge, then compares hashkv of every member at one
   * revision.
   */
  ConsistencyReport checkConsistency(ClusterRef cluster);

  /**
   * As {@link #checkConsistency}, at the request's revision and with hashkv taken only on the
   * members it names. A hashkv holds the member's backend read lock for its whole scan, and the
   * member's writes wait for it (measured here: 260-385 ms on a 1.3 GB keyspace, etcd 3.5.16), so a
   * runbook scans each member as few times as it can.
   */
  ConsistencyReport checkConsistencyAt(ConsistencyRequest request);

  /** Checksum of the whole keyspace at a revision (0: the current one), read page by page. */
  KeyspaceDigest keyspaceDigest(KeyspaceDigestRequest request);

  /**
   * Every member's hashkv at the request's revision, all at one compaction (a round that sees two
   * is taken again, bounded): computed by etcd on each member, nothing read out.
   */
  KeyspaceHashes keyspaceHashes(KeyspaceDigestRequest request);

  /** Hands leadership to a member; does nothing when it already leads. */
  void moveLeader(MoveLeaderRequest request);

  /**
   * Heartbeats until the member is healthy, reports the version and has caught up with the leader.
   */
  MemberStatus awaitMemberReady(AwaitMemberRequest request);

  /** Heartbeats until the cluster version reaches major.minor; returns it. */
  String awaitClusterVersion(AwaitClusterVersionRequest request);

  record KeyspaceDigestRequest(String cluster, long revision) {}

  /**
   * @param revision 0: the current one, read when the call is made (the report names it)
   * @param members the members to hash (empty: every member)
   */
  record ConsistencyRequest(String cluster, long revision, List<String> members) {}

  record MoveLeaderRequest(String cluster, String toMember) {}

  /**
   * @param expectedVersion server version the member must report, for example 3.5.16
   */
  record AwaitMemberRequest(
      String cluster, String member, String expectedVersion, int timeoutSeconds) {}

  /**
   * @param minorVersion for example 3.5
   */
  record AwaitClusterVersionRequest(String cluster, String minorVersion, int timeoutSeconds) {}
}
