package io.etcdrunbooks.workflows.upgrade;

import io.etcdrunbooks.workflows.activities.EtcdActivities.AwaitClusterVersionRequest;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.ProgressTracker;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.phases.Compensation;
import io.etcdrunbooks.workflows.phases.MemberVersionSwitch;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Workflow;
import java.util.ArrayList;
import java.util.List;

/**
 * The UPGRADE phase: every rung of the ladder in turn, each member switched to it, followers first
 * and the leader last. Before a member is touched, its way back is registered; a member that fails
 * sends the rung's members back ({@link UpgradeCompensation}). Once the cluster version follows a
 * rung, the rung is final.
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
    Compensation compensation = new Compensation();
    for (String member :
        UpgradePhases.leaderLast(run.ctx.activities().etcd.discover(run.ctx.ref()))) {
      progress.safePoint("member %s (%s)".formatted(member, step.label()));
      compensation.register(member, () -> putBack(run, step, switcher, member));
      try {
        if (switcher.switchTo(member, step.toVersion())) switched.add(member);
      } catch (ActivityFailure | ApplicationFailure e) {
        throw new UpgradeCompensation(run, step, member, switched, switcher, compensation)
            .failWith(e);
      }
    }
    progress.member("");
    String clusterVersion = awaitClusterVersion(run, step);
    compensation.commit();
    progress.message("cluster version %s after %s".formatted(clusterVersion, step.label()));
  }

  /**
   * The undo of a member's switch. The cluster version is read again before each member goes back:
   * once it reaches the rung's minor, an old-minor member could not join, so putting back stops
   * there, with the way forward (a restore) named by the failure.
   */
  private static boolean putBack(
      UpgradeRun run, LadderStep step, MemberVersionSwitch switcher, String member) {
    if (Workflow.getVersion(RECHECK_BEFORE_PUT_BACK, Workflow.DEFAULT_VERSION, 1) >= 1) {
      ClusterState state = run.ctx.activities().etcd.discover(run.ctx.ref());
      if (UpgradeCompensation.versionMoved(step, state)) {
        throw FailureType.UpgradeRollbackFailed.nonRetryable(
            "the cluster version moved to %s while members were put back, so %s cannot go back to %s"
                .formatted(state.clusterVersion(), member, step.fromVersion()));
      }
    }
    return switcher.switchTo(member, step.fromVersion());
  }

  static final String RECHECK_BEFORE_PUT_BACK = "recheck-cluster-version-before-put-back";

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
