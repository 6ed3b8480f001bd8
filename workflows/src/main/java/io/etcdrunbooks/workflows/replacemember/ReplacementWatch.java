package io.etcdrunbooks.workflows.replacemember;

import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.MemberStatus;
import io.etcdrunbooks.workflows.phases.Refusal;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.List;

/**
 * WAITING of an alert's automatic replacement: a member that is down only for a reboot comes back
 * within minutes, and replacing it would cost a data copy and an apiserver rollout for nothing.
 */
final class ReplacementWatch {

  private static final Duration LOOK_EVERY = Duration.ofSeconds(15);

  private ReplacementWatch() {}

  static void confirmDown(ReplaceRun run) {
    ReplaceMemberPatches.CONFIRM_MEMBER_DOWN.applies();
    String member = run.failed().name();
    long seconds = run.request.confirmDownSeconds();
    run.ctx
        .progress()
        .message(
            "%s must stay down %d s before it is replaced (a rebooting node comes back)"
                .formatted(member, seconds));
    long until = Workflow.currentTimeMillis() + seconds * 1000;
    while (Workflow.currentTimeMillis() < until) {
      long left = until - Workflow.currentTimeMillis();
      Duration wait = Duration.ofMillis(Math.min(LOOK_EVERY.toMillis(), left));
      if (Workflow.await(wait, run.alertResolved::getAsBoolean)) {
        cancel(
            run, "the alert resolved while %s was watched; nothing was touched".formatted(member));
        return;
      }
      ClusterState now =
          run.ctx
              .progress()
              .record("discover", () -> run.ctx.activities().etcd.discover(run.ctx.ref()));
      if (now.member(member).map(MemberStatus::healthy).orElse(false)) {
        cancel(
            run,
            "%s answered healthy again within %d s (a reboot?); nothing was touched"
                .formatted(member, seconds));
        return;
      }
    }
    // the cluster may have changed while the runbook watched: looked at again before anything
    List<String> problems = ReplacementDiscovery.discover(run).problems();
    if (!problems.isEmpty()) throw Refusal.of(run.what(), problems, FailureType.ReplaceRefused);
  }

  private static void cancel(ReplaceRun run, String reason) {
    run.cancelled = true;
    run.cancelReason = reason;
    run.ctx.progress().message(reason);
  }
}
