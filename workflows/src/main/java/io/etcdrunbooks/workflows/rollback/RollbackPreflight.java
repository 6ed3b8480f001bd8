package io.etcdrunbooks.workflows.rollback;

import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.EtcdVersion;
import io.etcdrunbooks.workflows.model.MemberRef;
import io.etcdrunbooks.workflows.model.MemberStatus;
import io.etcdrunbooks.workflows.phases.ClusterChecks;
import io.etcdrunbooks.workflows.phases.HostAccessPreflight;
import io.etcdrunbooks.workflows.phases.Refusal;
import io.temporal.failure.ApplicationFailure;
import java.util.ArrayList;
import java.util.List;

/**
 * The PREFLIGHT of a rollback: the first reason not to start, in the order the checks cost (the
 * request and the discovered cluster first, then the binary source, then the hosts), touching
 * nothing.
 */
final class RollbackPreflight {

  private RollbackPreflight() {}

  static void run(RollbackRun run) {
    ClusterState state = run.state;
    String asked = run.request.toVersion();
    run.toVersion = asked == null || asked.isBlank() ? ClusterChecks.runningVersion(state) : asked;
    if (!EtcdVersion.isVersion(run.toVersion)) {
      throw refused(run, "toVersion must look like 3.4.23, got '" + run.toVersion + "'");
    }
    if (state.leaderName().isEmpty()) {
      throw refused(
          run,
          "no member sees a leader: the cluster has no quorum; a rollback cannot restart members safely."
              + " Restore from a backup instead");
    }
    run.byRestore = movedPast(state.clusterVersion(), run.toVersion);
    // asked only where a downgrade is possible: histories recorded before it never got here
    if (run.byRestore
        && RollbackByDowngrade.possible(state.clusterVersion(), run.toVersion)
        && RollbackPatches.ONLINE_DOWNGRADE.applies()) {
      run.byRestore = false;
      run.byDowngrade = true;
    }
    if (run.byRestore && !run.request.acknowledgeDataLoss()) {
      throw refused(
          run,
          ("the cluster version is already %s, past %s: etcd cannot run older members any more."
                  + " The only way back is restoring the pre-upgrade backup with %s's binaries,"
                  + " which loses every write made since that backup: start the rollback again with"
                  + " acknowledgeDataLoss: true (and backupId, or the newest backup taken on %s is"
                  + " used)")
              .formatted(
                  state.clusterVersion(),
                  run.toVersion,
                  run.toVersion,
                  EtcdVersion.parse(run.toVersion).minorLabel()));
    }
    requireOffered(run);
    List<String> hostProblems =
        HostAccessPreflight.problems(
            run.ctx.activities(), run.ctx.progress(), run.cluster(), List.of(), false);
    if (!hostProblems.isEmpty())
      throw Refusal.of(run.what(), hostProblems, FailureType.RollbackRefused);
    if (RollbackPatches.SETTLE_RESTARTS.applies()) settle(run);
  }

  /**
   * A rollback follows an upgrade that was stopped, and the upgrade's last member restart may still
   * run on its host (it is detached from the worker so that a lost worker never leaves a member
   * down): what to roll back is read once every such restart has ended.
   */
  private static void settle(RollbackRun run) {
    List<String> waited = new ArrayList<>();
    for (MemberStatus m : run.state.members()) {
      boolean was =
          run.ctx
              .progress()
              .record(
                  m.name() + ": no restart still running on its host",
                  () ->
                      run.ctx
                          .activities()
                          .hostWatch
                          .awaitRestartSettled(new MemberRef(run.cluster(), m.name())));
      if (was) waited.add(m.name());
    }
    // read again even when none was waited for: one may have ended since DISCOVER read the cluster
    if (!waited.isEmpty()) {
      run.ctx.progress().message("a restart still running on " + waited + " ended first");
    }
    run.state =
        run.ctx
            .progress()
            .record("discover", () -> run.ctx.activities().etcd.discover(run.ctx.ref()));
  }

  private static void requireOffered(RollbackRun run) {
    List<String> available =
        run.ctx
            .progress()
            .record(
                "binary source",
                () -> run.ctx.activities().releases.availableVersions(run.ctx.ref()));
    if (!available.contains(run.toVersion)) {
      throw refused(
          run,
          "version %s is not offered by the binary source (it has %s)"
              .formatted(run.toVersion, available));
    }
  }

  /**
   * Whether the cluster version's minor is already above the target's: older binaries would refuse
   * to join.
   */
  static boolean movedPast(String clusterVersion, String toVersion) {
    EtcdVersion target = EtcdVersion.parse("toVersion", toVersion);
    return EtcdVersion.find(clusterVersion)
        .map(cluster -> cluster.minorAbove(target))
        .orElse(false);
  }

  private static ApplicationFailure refused(RollbackRun run, String why) {
    return Refusal.of(run.what(), List.of(why), FailureType.RollbackRefused);
  }
}
