package io.etcdrunbooks.workflows.replacemember;

import io.etcdrunbooks.workflows.activities.EtcdActivities.MoveLeaderRequest;
import io.etcdrunbooks.workflows.activities.MembershipActivities.RemoveMemberRequest;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.MemberStatus;
import io.etcdrunbooks.workflows.phases.Refusal;
import java.util.List;

/**
 * The REMOVE phase: the failed member leaves etcd's membership; when it is still the leader (a
 * forced replacement), it hands leadership to a healthy voter first.
 */
final class ReplacementRemoval {

  private ReplacementRemoval() {}

  static void run(ReplaceRun run) {
    String failed = run.failed().name();
    run.ctx.progress().stopIfCancelled(failed + " is removed");
    moveLeadershipAwayFrom(run, failed);
    run.removedId =
        run.ctx
            .progress()
            .record(
                "remove " + failed + " from the etcd membership",
                () ->
                    run.ctx
                        .activities()
                        .membership
                        .removeMember(
                            new RemoveMemberRequest(run.cluster(), run.failed().peerUrl())));
    if (run.removedId == 0) run.ctx.progress().message(failed + " was no longer an etcd member");
  }

  /**
   * A forced replacement of the leader hands leadership to a healthy voter first, so writes pause
   * only briefly.
   */
  private static void moveLeadershipAwayFrom(ReplaceRun run, String member) {
    ClusterState state = run.ctx.activities().etcd.discover(run.ctx.ref());
    if (!member.equals(state.leaderName())) return;
    String to =
        state.members().stream()
            .filter(m -> !m.name().equals(member) && m.healthy() && !m.learner())
            .map(MemberStatus::name)
            .findFirst()
            .orElseThrow(
                () ->
                    Refusal.of(
                        run.what(),
                        List.of("no healthy voting member to hand leadership to"),
                        FailureType.ReplaceRefused));
    run.ctx
        .progress()
        .run(
            member + ": hand leadership to " + to,
            () -> run.ctx.activities().etcd.moveLeader(new MoveLeaderRequest(run.cluster(), to)));
  }
}
