package io.etcdrunbooks.workflows.upgrade;

import io.etcdrunbooks.workflows.activities.EtcdActivities.ConsistencyRequest;
import io.etcdrunbooks.workflows.activities.EtcdActivities.KeyspaceDigestRequest;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.EtcdVersion;
import io.etcdrunbooks.workflows.model.KeyspaceDigest;
import io.etcdrunbooks.workflows.model.KeyspaceHashes;
import io.etcdrunbooks.workflows.phases.PostflightCheck;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.Promise;
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
    else if (run.fewerHashScans) run.earlyHashes = oneMembersHashAfterTheComparison(run);
    else run.earlyHashes = Async.function(() -> hashes(run));
  }

  /**
   * The keyspace at the backup's revision, hashed again on one member only, once the comparison at
   * the current revision is done (two hashkv at once on a member would hold its writes for both
   * scans). One stands for all: members that agree on every entry up to the current revision (the
   * comparison, which fails the postflight otherwise) agree on every entry up to the older one.
   */
  private static Promise<KeyspaceHashes> oneMembersHashAfterTheComparison(UpgradeRun run) {
    ConsistencyRequest oneMember =
        new ConsistencyRequest(
            run.cluster(), run.before.revision(), List.of(run.state.members().get(0).name()));
    return run.earlyConsistency
        .thenCompose(
            agreed -> Async.function(run.ctx.activities().etcd::checkConsistencyAt, oneMember))
        .thenApply(
            report ->
                new KeyspaceHashes(
                    report.revision(), report.compactRevision(), report.hashByMember()));
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
                  (run.fewerHashScans ? "one member's" : "every member's")
                      + " hashkv at revision "
                      + revision,
                  () -> run.earlyHashes == null ? hashes(run) : run.earlyHashes.get());
      if (run.beforeHashes.sameEntriesAs(after)) {
        // said in the result too: its checksum after is the one before, shown by the hashes
        String unchanged =
            "keyspace at revision %d unchanged: every member's hashkv %s before, %s after (compaction %d)"
                .formatted(
                    revision,
                    run.beforeHashes.hashByMember(),
                    after.hashByMember(),
                    after.compactRevision());
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
                run.ctx, state -> versionProblems(state, run.plan.targetVersion()))
            : PostflightCheck.check(
                run.ctx,
                state -> versionProblems(state, run.plan.targetVersion()),
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

  private static List<String> versionProblems(ClusterState state, EtcdVersion target) {
    List<String> problems = new ArrayList<>();
    state.members().stream()
        .filter(m -> !target.toString().equals(m.serverVersion()))
        .forEach(
            m ->
                problems.add(
                    "member %s runs %s, not %s".formatted(m.name(), m.serverVersion(), target)));
    if (!EtcdVersion.find(state.clusterVersion()).map(target::sameMinor).orElse(false)) {
      problems.add(
          "cluster version is %s, not %s".formatted(state.clusterVersion(), target.minorLabel()));
    }
    return problems;
  }
}
