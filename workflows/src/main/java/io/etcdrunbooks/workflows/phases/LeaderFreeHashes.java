package io.etcdrunbooks.workflows.phases;

import io.etcdrunbooks.workflows.activities.EtcdActivities.ConsistencyRequest;
import io.etcdrunbooks.workflows.activities.EtcdActivities.MoveLeaderRequest;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.ConsistencyReport;
import io.etcdrunbooks.workflows.model.KeyspaceHashes;
import io.etcdrunbooks.workflows.model.MemberStatus;
import io.temporal.failure.ActivityFailure;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * hashkv of every member at one revision, none of them leading while it is hashed. A hashkv holds
 * the member's backend read lock for its whole scan, and etcd's backend commit waits for that lock
 * while holding the write batch, so on the leader every write waits for the scan (measured here:
 * 260-385 ms for a 1.3 GB keyspace on etcd 3.5.16, a writer beside it). A follower's applies
 * waiting delay no write: a quorum of raft logs commits it. So on a large keyspace the followers
 * are hashed first, leadership moves to one of them, and the former leader is hashed then, at the
 * same revision.
 */
public final class LeaderFreeHashes {

  private LeaderFreeHashes() {}

  /**
   * From this size a leader's hashkv holds writes longer than a leader change does (about 50 ms
   * here; hashkv scans about 4 GB/s).
   */
  public static final long LARGE_KEYSPACE_BYTES = 256L << 20;

  /** Whether the leader's keyspace is large enough that its hashkv is worth a leader change. */
  public static boolean worthwhile(ClusterState state) {
    return state.members().size() > 1
        && state.leader().map(l -> l.dbSizeBytes() >= LARGE_KEYSPACE_BYTES).orElse(false);
  }

  /** Why the leader is not hashed now, for the progress. */
  public static String leaderDeferred(ClusterState state, String when) {
    MemberStatus leader = state.leader().orElseThrow();
    return "%s leads a keyspace of %d MiB, whose hashkv would hold every write for its whole scan: it is hashed %s"
        .formatted(leader.name(), leader.dbSizeBytes() >> 20, when);
  }

  /**
   * Raft indexes of every member and hashkv of every member but the one leading, at {@code
   * revision} (0: the current one, which the report names).
   */
  public static ConsistencyRequest followers(String cluster, long revision) {
    return new ConsistencyRequest(cluster, revision, List.of(), true);
  }

  /**
   * A whole round: the followers, leadership handed to one of them, then the former leader. A
   * leader change that fails leaves the leader hashed while it leads (said).
   */
  public static ConsistencyReport round(RunContext ctx, ClusterState state, long revision) {
    ConsistencyReport first =
        ctx.activities().etcd.checkConsistencyAt(followers(ctx.cluster(), revision));
    first.hashByMember().keySet().stream()
        .findFirst()
        .ifPresent(
            to -> {
              try {
                ctx.activities().etcd.moveLeader(new MoveLeaderRequest(ctx.cluster(), to));
              } catch (ActivityFailure e) {
                ctx.progress()
                    .message(
                        "leadership did not move to %s for the leader's hashkv (%s)"
                            .formatted(to, Failures.rootMessage(e)));
              }
            });
    return rest(ctx, first, names(state));
  }

  /**
   * After leadership moved: the members {@code first} left out, hashed at its revision while they
   * follow. One that still leads is hashed anyway (said); a compaction between the rounds makes one
   * round of every member, since hashes are comparable only at one compaction.
   */
  public static ConsistencyReport rest(
      RunContext ctx, ConsistencyReport first, List<String> members) {
    List<String> missing = missingFrom(first, members);
    if (missing.isEmpty()) return first;
    ConsistencyReport second =
        ctx.activities()
            .etcd
            .checkConsistencyAt(
                new ConsistencyRequest(ctx.cluster(), first.revision(), missing, true));
    List<String> leading = missingFrom(second, missing);
    if (!leading.isEmpty()) {
      ctx.progress()
          .message(
              "%s still leads: hashed while leading, writes wait for its scan".formatted(leading));
      second =
          merged(
              second,
              ctx.activities()
                  .etcd
                  .checkConsistencyAt(
                      new ConsistencyRequest(ctx.cluster(), first.revision(), leading, false)));
    }
    if (first.compactRevision() != second.compactRevision()) {
      ctx.progress()
          .message(
              "a compaction (%d, then %d) landed between the hash rounds at revision %d: every member is hashed again at once"
                  .formatted(first.compactRevision(), second.compactRevision(), first.revision()));
      return ctx.activities()
          .etcd
          .checkConsistencyAt(
              new ConsistencyRequest(ctx.cluster(), first.revision(), List.of(), false));
    }
    return merged(first, second);
  }

  /** The hashes of a report, as a keyspace's hashes at its revision. */
  public static KeyspaceHashes hashes(ConsistencyReport report) {
    return new KeyspaceHashes(report.revision(), report.compactRevision(), report.hashByMember());
  }

  private static ConsistencyReport merged(ConsistencyReport earlier, ConsistencyReport later) {
    Map<String, Long> hashes = new LinkedHashMap<>(earlier.hashByMember());
    later
        .hashByMember()
        .forEach(
            (member, hash) -> {
              Long before = hashes.putIfAbsent(member, hash);
              // hashed twice at one revision and compaction with two answers: both are shown
              if (before != null && !before.equals(hash)) hashes.put(member + " (again)", hash);
            });
    return new ConsistencyReport(
        earlier.revision(),
        hashes,
        later.raftIndexByMember(),
        earlier.raftIndexesConverged() && later.raftIndexesConverged(),
        earlier.hashByMember().isEmpty() ? later.compactRevision() : earlier.compactRevision());
  }

  private static List<String> missingFrom(ConsistencyReport report, List<String> members) {
    return members.stream().filter(m -> !report.hashByMember().containsKey(m)).toList();
  }

  private static List<String> names(ClusterState state) {
    return state.members().stream().map(MemberStatus::name).toList();
  }
}
