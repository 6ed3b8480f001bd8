package io.etcdrunbooks.workflows.rollback;

import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.ProgressTracker;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.MemberStatus;
import io.etcdrunbooks.workflows.phases.MemberVersionSwitch;
import io.etcdrunbooks.workflows.phases.PostflightCheck;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import java.util.Comparator;
import java.util.List;

/**
 * A rollback of a mixed cluster, member by member with the upgrade's member switch (PLAN, ROLLBACK,
 * POSTFLIGHT). No data is lost: every member keeps its data dir, and etcd runs mixed minors until
 * the cluster version moves.
 */
final class RollbackMembers {

  private RollbackMembers() {}

  static void plan(RollbackRun run) {
    run.members = notHealthyOnLeaderLast(run.state, run.toVersion);
    run.ctx.progress().message("roll back " + run.members + " to " + run.toVersion);
  }

  static String firstChange(RollbackRun run) {
    return "the first member goes back to " + run.toVersion;
  }

  static void run(RollbackRun run) {
    ProgressTracker progress = run.ctx.progress();
    progress.stopIfCancelled(firstChange(run));
    progress.step("-> " + run.toVersion);
    MemberVersionSwitch switcher =
        new MemberVersionSwitch(
            run.ctx.activities(),
            progress,
            run.cluster(),
            run.request.effectiveMemberTimeoutSeconds());
    for (String member : run.members) {
      progress.safePoint("member " + member);
      try {
        switcher.switchTo(member, run.toVersion);
      } catch (ActivityFailure | ApplicationFailure e) {
        throw FailureType.RollbackFailed.nonRetryable(
            ("%s to %s failed at member %s: %s. Next: inspect %s's host and log, then run the"
                    + " rollback again (members already on %s are skipped)")
                .formatted(
                    run.what(),
                    run.toVersion,
                    member,
                    Failures.rootMessage(e),
                    member,
                    run.toVersion));
      }
    }
    progress.member("");
  }

  static void postflight(RollbackRun run) {
    PostflightCheck.Found found =
        PostflightCheck.check(
            run.ctx,
            state ->
                state.members().stream()
                    .filter(m -> !run.toVersion.equals(m.serverVersion()))
                    .map(
                        m ->
                            "member %s runs %s, not %s"
                                .formatted(m.name(), m.serverVersion(), run.toVersion))
                    .toList());
    run.after = found.state();
    if (!found.problems().isEmpty()) throw PostflightCheck.failed(run.what(), found.problems());
  }

  /**
   * Members not healthy on the target: down ones first (restarting them costs nothing and gives
   * quorum back its margin), then healthy followers, the leader last.
   */
  static List<String> notHealthyOnLeaderLast(ClusterState state, String toVersion) {
    return state.members().stream()
        .filter(m -> !toVersion.equals(m.serverVersion()) || !m.healthy())
        .sorted(
            Comparator.comparing(MemberStatus::healthy)
                .thenComparing(m -> m.name().equals(state.leaderName())))
        .map(MemberStatus::name)
        .toList();
  }
}
