package io.etcdrunbooks.workflows.upgrade;

import io.etcdrunbooks.workflows.activities.EtcdActivities;
import io.etcdrunbooks.workflows.activities.EtcdActivities.KeyspaceDigestRequest;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.ConsistencyReport;
import io.etcdrunbooks.workflows.model.EtcdVersion;
import io.etcdrunbooks.workflows.model.KeyspaceDigest;
import io.etcdrunbooks.workflows.model.KeyspaceHashes;
import io.etcdrunbooks.workflows.model.MemberStatus;
import io.etcdrunbooks.workflows.phases.LeaderFreeHashes;
import io.etcdrunbooks.workflows.phases.PostflightCheck;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Async;
import java.util.ArrayList;
import java.util.List;

/**
 * The POSTFLIGHT phase of an upgrade: what every changing runbook checks, plus every member on the
 * target, the cluster version on its minor, and the keyspace at the backup's revision as it was
 * before the first member.
 */
final class UpgradePostflight {

  private UpgradePostflight() {}

  /**
   * Starts the reads that do not need the cluster version, while etcd raises it: the hashkv
   * comparison and the keyspace checksum at the backup's revision.
   */
  static void startReads(UpgradeRun run) {
    run.earlyConsistency =
        Async.function(run.ctx.activities().etcd::checkConsistency, run.ctx.ref());
    if (run.beforeHashes == null) run.earlyKeyspace = Async.function(() -> keyspace(run));
    else run.earlyHashes = Async.function(() -> hashes(run));
  }

  /**
   * As {@link #startReads}, with no member hashed while it leads ({@link LeaderFreeHashes}): the
   * members that follow the rung's last leader are hashed before {@code handBack} gives the
   * leadership back to the member restarted last, and the rest after it. The keyspace at the
   * backup's revision is hashed on the followers only: with every member agreeing at the current
   * revision (the comparison above, which fails the postflight otherwise), they agree on every
   * entry up to the older revision too, so one member's hash there stands for all.
   */
  static void startLeaderFreeReads(UpgradeRun run, Runnable handBack) {
    EtcdActivities etcd = run.ctx.activities().etcd;
    ConsistencyReport first =
        run.ctx
            .progress()
            .record(
                "every follower's hashkv",
                () -> etcd.checkConsistencyAt(LeaderFreeHashes.followers(run.cluster(), 0)));
    handBack.run();
    List<String> members = run.state.members().stream().map(MemberStatus::name).toList();
    run.earlyConsistency = Async.function(() -> LeaderFreeHashes.rest(run.ctx, first, members));
    if (run.beforeHashes == null) {
      run.earlyKeyspace = Async.function(() -> keyspace(run));
    } else {
      run.earlyHashes =
          Async.function(
                  etcd::checkConsistencyAt,
                  LeaderFreeHashes.followers(run.cluster(), run.before.revision()))
              .thenApply(LeaderFreeHashes::hashes);
    }
  }

  private static KeyspaceHashes hashes(UpgradeRun run) {
    return run.ctx
        .activities()
        .etcd
        .keyspaceHashes(new KeyspaceDigestRequest(run.cluster(), run.before.revision()));
  }

  /**
   * Whether every member's hashkv at the keyspace's revision, read again, shows it unchanged: then
   * it is not read out again. A read that fails or hashes that differ (a compaction landed in
   * between, or a version computes them otherwise) leave it to the keyspace checksum.
   */
  private static boolean unchangedByHashes(UpgradeRun run) {
    if (run.beforeHashes == null) return false;
    long revision = run.before.revision();
    try {
      KeyspaceHashes after =
          run.ctx
              .progress()
              .record(
                  "every member's hashkv at revision " + revision,
                  () -> run.earlyHashes == null ? hashes(run) : run.earlyHashes.get());
      if (run.beforeHashes.sameEntriesAs(after)) {
        // said in the result too: its checksum after is the one before, shown by the hashes
        String unchanged =
            "keyspace at revision %d unchanged: every member's hashkv %s before and after (compaction %d)"
                .formatted(revision, after.hashByMember(), after.compactRevision());
        run.ctx.progress().message(unchanged);
        run.notes.add(unchanged);
        return true;
      }
      run.ctx
          .progress()
          .message(
              "hashkv at revision %d before %s (compaction %d), after %s (compaction %d): the keyspace is read out again"
                  .formatted(
                      revision,
                      run.beforeHashes.hashByMember(),
                      run.beforeHashes.compactRevision(),
                      after.hashByMember(),
                      after.compactRevision()));
    } catch (ActivityFailure e) {
      run.ctx
          .progress()
          .message(
              "hashkv at revision %d could not be read again (%s): the keyspace is read out again"
                  .formatted(revision, Failures.rootMessage(e)));
    }
    return false;
  }

  private static KeyspaceDigest keyspace(UpgradeRun run) {
    return run.ctx
        .activities()
        .etcd
        .keyspaceDigest(new KeyspaceDigestRequest(run.cluster(), run.before.revision()));
  }

  static void run(UpgradeRun run) {
    PostflightCheck.Found found =
        run.earlyConsistency == null
            ? PostflightCheck.check(
                run.ctx, state -> versionProblems(state, run.request.targetVersion()))
            : PostflightCheck.check(
                run.ctx,
                state -> versionProblems(state, run.request.targetVersion()),
                run.earlyConsistency::get);
    run.state = found.state();
    List<String> problems = new ArrayList<>(found.problems());
    if (unchangedByHashes(run)) {
      // equal hashes of every entry up to the revision: the same keys, values and revisions
      run.after = run.before;
    } else {
      compareKeyspace(run, problems);
    }
    if (!problems.isEmpty()) throw PostflightCheck.failed(run.what(), problems);
  }

  private static void compareKeyspace(UpgradeRun run, List<String> problems) {
    try {
      run.after =
          run.ctx
              .progress()
              .record(
                  "keyspace checksum at revision " + run.before.revision(),
                  () -> run.earlyKeyspace == null ? keyspace(run) : run.earlyKeyspace.get());
      if (!run.after.equals(run.before)) {
        problems.add(
            "keyspace at revision %s changed during the upgrade: before %s, after %s; compare with backup %s"
                .formatted(run.before.revision(), run.before, run.after, run.backup.id()));
      }
    } catch (ActivityFailure e) {
      run.notes.add(
          "keyspace at revision %s could not be read again (%s); hashkv agreement was checked instead"
              .formatted(run.before.revision(), Failures.rootMessage(e)));
    }
  }

  private static List<String> versionProblems(ClusterState state, String target) {
    List<String> problems = new ArrayList<>();
    state.members().stream()
        .filter(m -> !target.equals(m.serverVersion()))
        .forEach(
            m ->
                problems.add(
                    "member %s runs %s, not %s".formatted(m.name(), m.serverVersion(), target)));
    EtcdVersion wanted = EtcdVersion.parse(target);
    if (!EtcdVersion.find(state.clusterVersion()).map(wanted::sameMinor).orElse(false)) {
      problems.add(
          "cluster version is %s, not %s".formatted(state.clusterVersion(), wanted.minorLabel()));
    }
    return problems;
  }
}
