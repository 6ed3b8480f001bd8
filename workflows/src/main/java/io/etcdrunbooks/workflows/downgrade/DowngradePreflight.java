package io.etcdrunbooks.workflows.downgrade;

import io.etcdrunbooks.workflows.activities.DowngradeActivities.DowngradeTarget;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.EtcdVersion;
import io.etcdrunbooks.workflows.model.MemberStatus;
import io.etcdrunbooks.workflows.phases.ClusterChecks;
import io.etcdrunbooks.workflows.phases.HostAccessPreflight;
import io.etcdrunbooks.workflows.phases.Refusal;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The PREFLIGHT of a downgrade: the first reason not to start, in the order the checks cost (the
 * request and the discovered cluster first, then the binary source, the hosts and etcd's own
 * validation), touching nothing. A downgrade a run before this one enabled is taken up again.
 */
final class DowngradePreflight {

  /** The first version etcd can be downgraded to online: 3.6 is the first that downgrades. */
  static final EtcdVersion OLDEST_TARGET = new EtcdVersion(3, 5, 0);

  private DowngradePreflight() {}

  static void run(DowngradeRun run) {
    String asked = run.toVersion();
    if (asked == null || !EtcdVersion.isVersion(asked)) {
      throw refused(run, "toVersion must look like 3.5.35, got '" + asked + "'");
    }
    EtcdVersion target = EtcdVersion.parse(asked);
    if (target.isBefore(OLDEST_TARGET)) {
      throw refused(
          run,
          ("toVersion %s is older than 3.5: etcd downgrades online only from 3.6 on (to 3.5 and"
                  + " later); further back, restore a backup taken on that version with the"
                  + " RestoreCluster runbook")
              .formatted(asked));
    }
    List<String> members = ClusterChecks.memberProblems(run.state, "downgrading");
    if (!members.isEmpty()) throw Refusal.of(run.what(), members, FailureType.DowngradeRefused);
    run.before =
        run.ctx
            .progress()
            .record("downgrade status", () -> run.ctx.activities().downgrade.status(run.ctx.ref()));
    if (run.before.enabled() && !run.before.enabledTo(target.minorLabel())) {
      throw refused(
          run,
          ("etcd's downgrade to %s is still in flight (etcd ends one a few seconds after every"
                  + " member runs its target): start again once it has ended, or end it with"
                  + " `etcdctl downgrade cancel`")
              .formatted(run.before.targetVersion()));
    }
    Optional<String> notOneMinor =
        whyNotOneMinorDown(run.state, target, run.before.enabledTo(target.minorLabel()));
    if (notOneMinor.isPresent()) throw refused(run, notOneMinor.get());
    requireOffered(run);
    List<String> hostProblems =
        HostAccessPreflight.problems(
            run.ctx.activities(), run.ctx.progress(), run.cluster(), List.of(), false);
    if (!hostProblems.isEmpty())
      throw Refusal.of(run.what(), hostProblems, FailureType.DowngradeRefused);
    if (!run.before.enabledTo(target.minorLabel()) && !allOn(run.state, asked)) validate(run);
    run.rememberVersionsBefore();
  }

  /**
   * Why the cluster cannot go to {@code target} online: etcd downgrades one minor at a time, from
   * the cluster version; empty when it can, or when a downgrade to it is already in flight (a run
   * taken up again) or every member already runs it.
   */
  static Optional<String> whyNotOneMinorDown(
      ClusterState state, EtcdVersion target, boolean alreadyEnabled) {
    if (alreadyEnabled || allOn(state, target.toString())) return Optional.empty();
    Optional<EtcdVersion> cluster = EtcdVersion.find(state.clusterVersion());
    if (cluster.isEmpty()) {
      return Optional.of(
          "the cluster version is not decided yet ('%s'): wait until /version reports it"
              .formatted(state.clusterVersion()));
    }
    EtcdVersion cv = cluster.get();
    if (cv.major() == target.major() && cv.minor() == target.minor() + 1) return Optional.empty();
    if (cv.sameMinor(target)) {
      return Optional.of(
          ("the cluster version is already %s: no downgrade is needed; members still on a newer"
                  + " version go back with the RollbackCluster runbook")
              .formatted(state.clusterVersion()));
    }
    return Optional.of(
        ("toVersion %s is not exactly one minor below the cluster version %s: etcd downgrades one"
                + " minor at a time (to %d.%d.x first)")
            .formatted(target, state.clusterVersion(), cv.major(), cv.minor() - 1));
  }

  static boolean allOn(ClusterState state, String version) {
    return state.members().stream().allMatch(m -> version.equals(m.serverVersion()));
  }

  /** The target's binaries and the ones each member runs now (to put a member back) on offer. */
  private static void requireOffered(DowngradeRun run) {
    List<String> available =
        run.ctx
            .progress()
            .record(
                "binary source",
                () -> run.ctx.activities().releases.availableVersions(run.ctx.ref()));
    TreeSet<String> needed = new TreeSet<>(EtcdVersion.STRING_ORDER);
    needed.add(run.toVersion());
    run.state.members().stream()
        .map(MemberStatus::serverVersion)
        .filter(EtcdVersion::isVersion)
        .forEach(needed::add);
    List<String> missing = new ArrayList<>(needed);
    missing.removeAll(available);
    if (!missing.isEmpty()) {
      throw refused(
          run,
          ("the binary source does not offer %s (it has %s): the downgrade needs %s's binaries,"
                  + " and the running version's to put a member back")
              .formatted(missing, available, run.toVersion()));
    }
  }

  /** etcd's own {@code downgrade validate}: its reason, when it refuses, is the refusal's. */
  private static void validate(DowngradeRun run) {
    String minor = run.targetMinor();
    try {
      run.ctx
          .progress()
          .run(
              "etcd downgrade validate " + minor,
              () ->
                  run.ctx
                      .activities()
                      .downgrade
                      .validate(new DowngradeTarget(run.cluster(), minor)));
    } catch (ActivityFailure e) {
      if (!FailureType.DowngradeRefused.name().equals(Failures.rootType(e))) throw e;
      throw refused(run, "etcd refuses the downgrade to " + minor + ": " + Failures.rootMessage(e));
    }
  }

  private static ApplicationFailure refused(DowngradeRun run, String why) {
    return Refusal.of(run.what(), List.of(why), FailureType.DowngradeRefused);
  }
}
