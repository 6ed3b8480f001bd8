package io.etcdrunbooks.activities.etcd;

import io.etcd.jetcd.maintenance.HashKVResponse;
import io.etcdrunbooks.activities.host.MemberFence;
import io.etcdrunbooks.activities.support.Heartbeats;
import io.etcdrunbooks.activities.support.WaitDeadline;
import io.etcdrunbooks.activities.targets.ClusterTargets;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.workflows.activities.EtcdActivities;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.ConsistencyReport;
import io.etcdrunbooks.workflows.model.EtcdVersion;
import io.etcdrunbooks.workflows.model.KeyspaceDigest;
import io.etcdrunbooks.workflows.model.KeyspaceHashes;
import io.etcdrunbooks.workflows.model.MemberStatus;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * {@link EtcdActivities} through jetcd and the members' HTTP endpoints; the inventory is read on
 * every call.
 */
public final class EtcdActivitiesImpl implements EtcdActivities {

  /** Raft entries a member may be behind the leader and still count as caught up. */
  static final long MAX_RAFT_LAG = 10;

  static final Duration RAFT_CONVERGE_TIMEOUT = Duration.ofSeconds(10);
  static final Duration HASH_RETRY_TIMEOUT = Duration.ofSeconds(5);
  static final Duration LEADER_MOVE_TIMEOUT = Duration.ofSeconds(15);
  static final long POLL_MILLIS = 200;

  private final ClusterTargets targets;
  private final FencedMembersCheck.Stopper fencedStopper;

  /** Reports fenced members that answer again, without stopping them (no host access). */
  public EtcdActivitiesImpl(ClusterTargets targets) {
    this(targets, FencedMembersCheck.REPORT_ONLY);
  }

  private EtcdActivitiesImpl(ClusterTargets targets, FencedMembersCheck.Stopper fencedStopper) {
    this.targets = targets;
    this.fencedStopper = fencedStopper;
  }

  /** Stops fenced members that answer again on their hosts, reached through the targets. */
  public static EtcdActivitiesImpl stoppingFencedMembers(ClusterTargets targets) {
    MemberFence fence = new MemberFence(targets.ssh());
    return new EtcdActivitiesImpl(
        targets,
        (cluster, member) -> fence.fence(cluster, member.member(), member.fencedBy(), true));
  }

  @Override
  public ClusterState discover(ClusterRef cluster) {
    return withCluster(
        cluster.cluster(),
        inspector -> {
          ClusterSpec spec = inspector.clients().spec();
          ClusterState state = withUsableCredentials(spec, inspector.state());
          // every runbook discovers first: a fenced member that came back is stopped here
          return spec.fenced().isEmpty()
              ? state
              : state.withFencedBack(FencedMembersCheck.check(spec, state, fencedStopper));
        });
  }

  /**
   * A cluster with authentication on cannot be operated without the inventory's credentials, and
   * refused credentials make every member look unreachable: both are said as what they are.
   */
  private static ClusterState withUsableCredentials(ClusterSpec spec, ClusterState state) {
    if (spec.auth() == null && state.authOn()) {
      throw FailureType.InvalidRequest.nonRetryable(
          "authentication is on in cluster '%s' and the inventory has no etcd credentials for it: add auth: {user: root, passwordFile: /path/to/a/0600/file} to the cluster's inventory entry"
              .formatted(spec.name()));
    }
    boolean everyMemberRefusedUs =
        !state.members().isEmpty()
            && state.members().stream()
                .allMatch(
                    m -> !m.reachable() && String.valueOf(m.errors()).contains("UNAUTHENTICATED"));
    if (spec.auth() != null && everyMemberRefusedUs) {
      throw FailureType.InvalidRequest.nonRetryable(
          "etcd refused the inventory's credentials for cluster '%s' (user '%s'): check auth.user and the password in auth.passwordFile %s"
              .formatted(spec.name(), spec.auth().user(), spec.auth().passwordFile()));
    }
    return state;
  }

  @Override
  public ConsistencyReport checkConsistency(ClusterRef cluster) {
    return withCluster(
        cluster.cluster(),
        inspector -> checkConsistency(inspector, new ConsistencyRequest("", 0, List.of())));
  }

  @Override
  public ConsistencyReport checkConsistencyAt(ConsistencyRequest request) {
    return withCluster(request.cluster(), inspector -> checkConsistency(inspector, request));
  }

  private ConsistencyReport checkConsistency(
      ClusterInspector inspector, ConsistencyRequest request) {
    Converged converged = awaitRaftConvergence(inspector);
    List<String> unreachable =
        converged.statuses.stream()
            .filter(s -> !s.reachable())
            .map(s -> s.name() + ": " + s.errors())
            .toList();
    if (!unreachable.isEmpty()) {
      throw FailureType.MembersUnreachable.retryable(
          "cannot compare hashes of cluster '"
              + inspector.clients().spec().name()
              + "': members unreachable: "
              + unreachable,
          null);
    }
    long revision = request.revision() > 0 ? request.revision() : inspector.currentRevision();
    List<String> hashed =
        converged.statuses.stream()
            .filter(s -> request.members().isEmpty() || request.members().contains(s.name()))
            .map(MemberStatus::name)
            .toList();
    KeyspaceHashes hashes =
        hashed.isEmpty()
            ? new KeyspaceHashes(revision, 0, Map.of())
            : hashesAtOneCompaction(inspector, hashed, revision);
    Map<String, Long> raftIndexes = new LinkedHashMap<>();
    converged.statuses.forEach(s -> raftIndexes.put(s.name(), s.raftIndex()));
    return new ConsistencyReport(
        revision,
        hashes.hashByMember(),
        raftIndexes,
        converged.converged,
        hashes.compactRevision());
  }

  private record Converged(List<MemberStatus> statuses, boolean converged) {}

  /**
   * Polls until every member's raft index is within {@link #MAX_RAFT_LAG} of the leader's, or the
   * time is up.
   */
  private Converged awaitRaftConvergence(ClusterInspector inspector) {
    long deadline = System.nanoTime() + RAFT_CONVERGE_TIMEOUT.toNanos();
    while (true) {
      List<MemberStatus> statuses = inspector.statuses();
      Optional<MemberStatus> leader = statuses.stream().filter(MemberStatus::leads).findFirst();
      boolean converged =
          leader.isPresent()
              && statuses.stream()
                  .allMatch(
                      s ->
                          s.reachable()
                              && leader.get().raftIndex() - s.raftIndex() <= MAX_RAFT_LAG);
      Heartbeats.beat("raft indexes: " + indexes(statuses));
      if (converged || System.nanoTime() > deadline) return new Converged(statuses, converged);
      Heartbeats.pause(POLL_MILLIS);
    }
  }

  /**
   * hashkv covers the keys from a member's newest compaction up to the revision, so hashes are only
   * comparable when every member reports the same compaction: a compaction that lands between two
   * members' answers makes the round be taken again (bounded), never a false "differs".
   */
  private KeyspaceHashes hashesAtOneCompaction(
      ClusterInspector inspector, Collection<String> members, long revision) {
    long deadline = System.nanoTime() + HASH_RETRY_TIMEOUT.toNanos();
    while (true) {
      Map<String, Long> hashes = new LinkedHashMap<>();
      Map<String, Long> compactions = new LinkedHashMap<>();
      for (String member : members) {
        HashKVResponse answer = hashKv(inspector, member, revision);
        hashes.put(member, Integer.toUnsignedLong(answer.getHash()));
        compactions.put(member, answer.getCompacted());
      }
      if (compactions.values().stream().distinct().count() <= 1) {
        long compacted = compactions.values().stream().findFirst().orElse(0L);
        return new KeyspaceHashes(revision, compacted, hashes);
      }
      if (System.nanoTime() > deadline) {
        throw FailureType.MembersUnreachable.retryable(
            "cannot compare hashes of cluster '%s' at revision %d: the members report different compactions %s (a compaction is under way); try again when it has finished"
                .formatted(inspector.clients().spec().name(), revision, compactions),
            null);
      }
      Heartbeats.beat("a compaction landed during the hash round " + compactions + "; again");
      Heartbeats.pause(POLL_MILLIS);
    }
  }

  private HashKVResponse hashKv(ClusterInspector inspector, String member, long revision) {
    ClusterSpec spec = inspector.clients().spec();
    long deadline = System.nanoTime() + HASH_RETRY_TIMEOUT.toNanos();
    while (true) {
      try {
        return awaitBeating(
            inspector
                .clients()
                .member(member)
                .getMaintenanceClient()
                .hashKV(EtcdClients.target(spec.member(member)), revision),
            "hashkv of member '" + member + "' at revision " + revision);
      } catch (EtcdCallException e) {
        if (e.isCompacted()) {
          Optional<HashKVResponse> atNewest = hashAtNewest(inspector, member, revision);
          if (atNewest.isPresent()) return atNewest.get();
          throw FailureType.InvalidRequest.nonRetryable(
              "cannot hash member '%s' of cluster '%s' at revision %d: %s; etcd keeps no entry before its compaction"
                  .formatted(member, spec.name(), revision, e.getMessage()));
        }
        if (System.nanoTime() > deadline) {
          throw FailureType.MembersUnreachable.retryable(e.getMessage(), e);
        }
        // typically "required revision is a future revision": the member has not applied it yet
        Heartbeats.beat("waiting for member '" + member + "' to apply revision " + revision);
        Heartbeats.pause(POLL_MILLIS);
      }
    }
  }

  /**
   * The hash at the member's newest revision, when that is the revision asked for. A member
   * restored with --mark-compacted has its newest revision compacted until the next write, and etcd
   * before 3.5 refuses a hash at its compaction revision (3.5 allows it); a hash at "the newest" is
   * taken at that same revision.
   */
  private Optional<HashKVResponse> hashAtNewest(
      ClusterInspector inspector, String member, long revision) {
    ClusterSpec spec = inspector.clients().spec();
    long newest =
        EtcdClients.await(
                inspector
                    .clients()
                    .member(member)
                    .getMaintenanceClient()
                    .statusMember(EtcdClients.target(spec.member(member))),
                "status of member '" + member + "'")
            .getHeader()
            .getRevision();
    // a hash of the whole keyspace is taken only when it is at the revision asked for
    if (newest != revision) return Optional.empty();
    HashKVResponse answer =
        awaitBeating(
            inspector
                .clients()
                .member(member)
                .getMaintenanceClient()
                .hashKV(EtcdClients.target(spec.member(member)), 0),
            "hashkv of member '" + member + "' at its newest revision");
    return answer.getHeader().getRevision() == revision ? Optional.of(answer) : Optional.empty();
  }

  /**
   * A hashkv reads every entry of the member's keyspace: on a large one it takes longer than a
   * request's usual timeout, so it is waited for up to {@link #HASH_TIMEOUT}, heartbeating.
   */
  private static <T> T awaitBeating(java.util.concurrent.CompletableFuture<T> call, String what) {
    long deadline = System.nanoTime() + HASH_TIMEOUT.toNanos();
    while (!call.isDone() && System.nanoTime() < deadline) {
      Heartbeats.beat("waiting for " + what);
      try {
        call.get(1, java.util.concurrent.TimeUnit.SECONDS);
      } catch (java.util.concurrent.TimeoutException stillRunning) {
        // beat again
      } catch (java.util.concurrent.ExecutionException failed) {
        break; // said by the await below
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break; // said by the await below
      }
    }
    if (!call.isDone() && !Thread.currentThread().isInterrupted()) {
      call.cancel(true);
      throw new EtcdCallException(
          what + ": no answer within " + HASH_TIMEOUT.toSeconds() + " s", null);
    }
    return EtcdClients.await(call, what);
  }

  static final Duration HASH_TIMEOUT = Duration.ofMinutes(2);

  @Override
  public KeyspaceHashes keyspaceHashes(KeyspaceDigestRequest request) {
    return withCluster(
        request.cluster(),
        inspector ->
            hashesAtOneCompaction(
                inspector,
                inspector.clients().spec().members().stream().map(MemberSpec::name).toList(),
                request.revision()));
  }

  @Override
  public KeyspaceDigest keyspaceDigest(KeyspaceDigestRequest request) {
    return withCluster(
        request.cluster(),
        inspector -> {
          try {
            return new KeyspaceReader(inspector.clients().cluster().getKVClient())
                .digest(request.revision(), Heartbeats::beat);
          } catch (EtcdCallException e) {
            if (e.isCompacted() || e.isFutureRevision()) {
              throw FailureType.InvalidRequest.nonRetryable(
                  "cannot read cluster '"
                      + request.cluster()
                      + "' at revision "
                      + request.revision()
                      + ": "
                      + e.getMessage());
            }
            throw e;
          }
        });
  }

  @Override
  public void moveLeader(MoveLeaderRequest request) {
    withCluster(
        request.cluster(),
        inspector -> {
          moveLeader(inspector, request.toMember());
          return null;
        });
  }

  private void moveLeader(ClusterInspector inspector, String toMember) {
    String cluster = inspector.clients().spec().name();
    MemberStatus target = inspector.status(MemberReadiness.knownMember(inspector, toMember));
    if (target.leads()) return;
    if (!target.reachable() || target.id() == 0) {
      throw FailureType.MembersUnreachable.retryable(
          "cannot hand leadership of cluster '"
              + cluster
              + "' to '"
              + toMember
              + "': it is not reachable: "
              + target.errors(),
          null);
    }
    List<MemberStatus> statuses = inspector.statuses();
    String leader = inspector.leaderName(statuses);
    if (leader.isEmpty()) {
      throw FailureType.NoLeader.retryable(
          "cluster '"
              + cluster
              + "' has no leader to hand leadership from; statuses: "
              + brief(statuses),
          null);
    }
    if (!leader.equals(toMember)) {
      // etcd only accepts move-leader at the current leader
      EtcdClients.await(
          inspector.clients().member(leader).getMaintenanceClient().moveLeader(target.id()),
          "move leader of cluster '" + cluster + "' from '" + leader + "' to '" + toMember + "'",
          LEADER_MOVE_TIMEOUT);
    }
    long deadline = System.nanoTime() + LEADER_MOVE_TIMEOUT.toNanos();
    MemberStatus last = target;
    while (System.nanoTime() < deadline) {
      last = inspector.status(toMember);
      if (last.leads()) return;
      Heartbeats.beat("waiting for '" + toMember + "' to lead");
      Heartbeats.pause(POLL_MILLIS);
    }
    throw FailureType.LeaderNotMoved.retryable(
        "'"
            + toMember
            + "' of cluster '"
            + cluster
            + "' did not become leader within "
            + LEADER_MOVE_TIMEOUT.toSeconds()
            + " s; it sees leader id "
            + Long.toHexString(last.leaderId())
            + ", errors "
            + last.errors(),
        null);
  }

  @Override
  public MemberStatus awaitMemberReady(AwaitMemberRequest request) {
    return withCluster(request.cluster(), inspector -> MemberReadiness.await(inspector, request));
  }

  @Override
  public String awaitClusterVersion(AwaitClusterVersionRequest request) {
    return withCluster(request.cluster(), inspector -> awaitClusterVersion(inspector, request));
  }

  private String awaitClusterVersion(
      ClusterInspector inspector, AwaitClusterVersionRequest request) {
    ClusterSpec spec = inspector.clients().spec();
    // fails early on a malformed request
    EtcdVersion wanted = EtcdVersion.parse("minorVersion", request.minorVersion() + ".0");
    WaitDeadline deadline = WaitDeadline.afterSeconds(request.timeoutSeconds());
    List<String> seen;
    do {
      seen = new ArrayList<>();
      for (var member : spec.members()) {
        try {
          String version = inspector.http().version(member.clientUrl()).etcdcluster();
          if (EtcdVersion.find(version).filter(v -> !v.isBefore(wanted)).isPresent())
            return version;
          seen.add(member.name() + ": " + (version.isEmpty() ? "not decided" : version));
        } catch (IOException e) {
          seen.add(member.name() + ": " + e.getMessage());
        }
      }
      Heartbeats.beat("cluster version: " + seen);
      Heartbeats.pause(POLL_MILLIS);
    } while (!deadline.passed());
    throw FailureType.ClusterVersionNotReached.nonRetryable(
        "cluster '"
            + spec.name()
            + "' did not reach cluster version "
            + request.minorVersion()
            + " within "
            + request.timeoutSeconds()
            + " s; /version reports "
            + seen
            + ". The cluster version moves up only when every member runs the new version: check each member's server version.");
  }

  private <T> T withCluster(String cluster, Function<ClusterInspector, T> work) {
    try (EtcdClients clients = targets.clients(cluster)) {
      return work.apply(new ClusterInspector(clients));
    } catch (EtcdCallException e) {
      throw FailureType.MembersUnreachable.retryable(e.getMessage(), e);
    }
  }

  private static String indexes(List<MemberStatus> statuses) {
    return statuses.stream()
        .map(s -> s.name() + "=" + (s.reachable() ? s.raftIndex() : "unreachable"))
        .toList()
        .toString();
  }

  private static String brief(List<MemberStatus> statuses) {
    return statuses.stream()
        .map(
            s ->
                s.name()
                    + (s.reachable()
                        ? " leader=" + Long.toHexString(s.leaderId())
                        : " unreachable " + s.errors()))
        .toList()
        .toString();
  }
}
