package io.etcdrunbooks.workflows.upgrade;

import io.etcdrunbooks.workflows.activities.EtcdActivities.AwaitClusterVersionRequest;
import io.etcdrunbooks.workflows.activities.EtcdActivities.MoveLeaderRequest;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.ProgressTracker;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.phases.ClusterDescription;
import io.etcdrunbooks.workflows.phases.Compensation;
import io.etcdrunbooks.workflows.phases.KubeadmConfigSync;
import io.etcdrunbooks.workflows.phases.MemberVersionSwitch;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Workflow;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The UPGRADE phase: every rung of the ladder in turn, each member switched to it, followers first
 * and the leader last. Before a member is touched, its way back is registered; a member that fails
 * has the phase runner send the rung's members back ({@link UpgradeCompensation}). Once the cluster
 * version follows a rung, the rung is final.
 */
final class UpgradeLadder {

  private static final int CLUSTER_VERSION_TIMEOUT_SECONDS = 120;

  private UpgradeLadder() {}

  static void run(UpgradeRun run) {
    MemberVersionSwitch switcher =
        new MemberVersionSwitch(
            run.ctx.activities(),
            run.ctx.progress(),
            run.cluster(),
            run.request.effectiveMemberTimeoutSeconds());
    for (LadderStep step : run.plan.steps()) climb(run, switcher, step);
  }

  /** One rung: every member switched, leader last, then the cluster version follows. */
  private static void climb(UpgradeRun run, MemberVersionSwitch switcher, LadderStep step) {
    ProgressTracker progress = run.ctx.progress();
    progress.step(step.label());
    List<String> switched = new ArrayList<>();
    run.restarted.put(step.label(), switched);
    Compensation.Scope compensation = run.ctx.undos().scope();
    FreshRead fresh =
        FreshRead.before(progress).of(run.ctx.activities().etcd.discover(run.ctx.ref()));
    ClusterState discovered = fresh.state();
    if (run.rungRules) {
      List<String> problems = RungRules.problems(step, discovered);
      if (!problems.isEmpty()) {
        compensation.commit(); // nothing of this rung was touched
        throw FailureType.UpgradeHalted.nonRetryable(
            ("%s halted before %s, no member of it touched: %s. Members stay as they are (the"
                    + " rungs before it are final); start the upgrade again once this is fixed")
                .formatted(run.what(), step.label(), String.join("; ", problems)));
      }
    }
    boolean first = true;
    boolean snapshotFirst = SnapshotBefore37.needed(step);
    long lastOldEntry = SnapshotBefore37.lastOldEntry(discovered);
    for (String member : UpgradePhases.leaderLast(discovered)) {
      progress.safePoint("member %s (%s)".formatted(member, step.label()));
      compensation.register(member, () -> putBack(run, step, switcher, member));
      // a member is checked on the cluster read last (by the rung's discovery, or by the previous
      // member's restart once it was ready) only when nothing came between (FreshRead)
      Optional<ClusterState> justRead =
          (first || reusesRestartReads()) && UpgradePhases.overlapsChecks()
              ? fresh.ifUntouched(progress)
              : Optional.empty();
      first = false;
      FreshRead beforeSwitch = FreshRead.before(progress);
      try {
        if (snapshotFirst) {
          SnapshotBefore37.run(run, step, member, lastOldEntry);
          justRead = Optional.empty(); // restarted since
        }
        if (switcher.switchTo(member, step.toVersion().toString(), justRead)) switched.add(member);
      } catch (ActivityFailure | ApplicationFailure e) {
        if (FailureType.QuorumAtRisk.isTypeOf(e)) {
          compensation.commit(); // putting members back would mean stopping them too
          throw UpgradeCompensation.halted(run, step, member, switched, Failures.rootMessage(e));
        }
        String logTail = ClusterDescription.logTail(run.ctx.activities(), run.cluster(), member);
        throw run.ctx
            .undos()
            .failed(
                e, new UpgradeCompensation.MemberFailed(step, member, switched, switcher, logTail));
      }
      fresh = switcher.readAfterLastRestart().map(beforeSwitch::of).orElse(FreshRead.NONE);
    }
    progress.member("");
    if (UpgradePhases.overlapsChecks()) {
      if (isLast(run, step)) UpgradePostflight.startReads(run);
      handLeadershipBack(run, discovered.leaderName(), switched);
    }
    String clusterVersion = awaitClusterVersion(run, step);
    compensation.commit();
    progress.message("cluster version %s after %s".formatted(clusterVersion, step.label()));
    // after the rung is final: a rung put back leaves kubeadm-config on the version still running
    KubeadmConfigSync.followVersion(
            run.ctx,
            step.toVersion().toString(),
            "%s: every member runs %s, cluster version %s"
                .formatted(run.what(), step.toVersion(), clusterVersion))
        .ifPresent(run.notes::add);
  }

  private static boolean reusesRestartReads() {
    return UpgradePatches.REUSE_RESTART_READS.applies();
  }

  /**
   * A read of the cluster and what could make it stale. It is used only when nothing came between:
   * no pause held or signalled since before the read (a resume can arrive in the workflow task that
   * brings the read, and a member can die while the runbook is paused), and the same workflow task
   * (workflow time moves when anything else waited).
   */
  private record FreshRead(
      Optional<ClusterState> read, boolean pausedBefore, int pauseSignals, long readAt) {

    static final FreshRead NONE = new FreshRead(Optional.empty(), false, 0, 0);

    /** For a read just made, the pause state taken before its activity was called. */
    static FreshRead before(ProgressTracker progress) {
      return new FreshRead(Optional.empty(), progress.isPaused(), progress.pauseSignals(), 0);
    }

    /** The read made since {@link #before}, at this workflow task's time. */
    FreshRead of(ClusterState state) {
      return new FreshRead(
          Optional.of(state), pausedBefore, pauseSignals, Workflow.currentTimeMillis());
    }

    ClusterState state() {
      return read.orElseThrow();
    }

    Optional<ClusterState> ifUntouched(ProgressTracker progress) {
      boolean untouched =
          !pausedBefore
              && progress.pauseSignals() == pauseSignals
              && Workflow.currentTimeMillis() == readAt;
      return untouched ? read : Optional.empty();
    }
  }

  /**
   * The undo of a member's switch. The cluster version is read again before each member goes back:
   * once it reaches the rung's minor, an old-minor member could not join, so putting back stops
   * there, with the way forward (a restore) named by the failure.
   */
  private static boolean putBack(
      UpgradeRun run, LadderStep step, MemberVersionSwitch switcher, String member) {
    if (UpgradePatches.RECHECK_BEFORE_PUT_BACK.applies()) {
      ClusterState state = run.ctx.activities().etcd.discover(run.ctx.ref());
      if (UpgradeCompensation.versionMoved(step, state)) {
        throw FailureType.UpgradeRollbackFailed.nonRetryable(
            "the cluster version moved to %s while members were put back, so %s cannot go back to %s"
                .formatted(state.clusterVersion(), member, step.fromVersion()));
      }
    }
    return switcher.switchTo(member, step.fromVersion().toString());
  }

  /**
   * The rung's leader was restarted last, after it handed leadership away; it gets it back. etcd
   * decides the cluster version when a new leader commits its first entry, and otherwise only every
   * few seconds (monitorVersions; "When there is a new leader, it is forced to do a version
   * checking immediately", etcd commit e866314), so the rung is final at once instead of up to 4 s
   * later, and the cluster ends with the leader it had. A transfer that fails only leaves the
   * cluster version to etcd's timer.
   */
  private static void handLeadershipBack(UpgradeRun run, String leader, List<String> switched) {
    if (leader.isEmpty() || !switched.contains(leader)) return;
    try {
      run.ctx
          .progress()
          .run(
              "hand leadership back to " + leader + ": etcd decides the cluster version at once",
              () ->
                  run.ctx
                      .activities()
                      .etcd
                      .moveLeader(new MoveLeaderRequest(run.cluster(), leader)));
    } catch (ActivityFailure e) {
      run.ctx
          .progress()
          .message(
              "leadership stays where it is (%s); the cluster version follows on etcd's own timer"
                  .formatted(Failures.rootMessage(e)));
    }
  }

  private static boolean isLast(UpgradeRun run, LadderStep step) {
    List<LadderStep> steps = run.plan.steps();
    return steps.get(steps.size() - 1).equals(step);
  }

  private static String awaitClusterVersion(UpgradeRun run, LadderStep step) {
    return run.ctx
        .progress()
        .record(
            "cluster version reaches " + step.toMinor(),
            () ->
                run.ctx
                    .activities()
                    .etcdWait
                    .awaitClusterVersion(
                        new AwaitClusterVersionRequest(
                            run.cluster(), step.toMinor(), CLUSTER_VERSION_TIMEOUT_SECONDS)));
  }
}
