package io.etcdrunbooks.workflows.replacemember;

import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.phases.MemberJoin;
import io.temporal.failure.ApplicationFailure;

/**
 * The JOIN phase: the new member joins ({@link MemberJoin}: added, a learner on 3.4 and later, its
 * host prepared, started, caught up, promoted). When any step fails, the new member is removed
 * again and stopped, and the runbook fails naming it. The failed member stays removed: running the
 * runbook again skips the removal.
 */
final class ReplacementJoin {

  private ReplacementJoin() {}

  static void run(ReplaceRun run) {
    MemberJoin.Joining joining =
        new MemberJoin.Joining(
            run.replacement(),
            run.version,
            run.learner,
            run.request.effectiveMemberTimeoutSeconds());
    run.added = new MemberJoin(run.ctx, joining).run();
  }

  static ApplicationFailure failure(ReplaceRun run, MemberJoin.Failed failed) {
    MemberPlacement replacement = run.replacement();
    String failedMember = run.failed().name();
    return FailureType.ReplacementJoinFailed.nonRetryable(
        ("%s failed: the new member %s (%s on %s) could not join: %s%s%s %s stays removed. %s"
                + " Next: fix %s (see the log above), then start ReplaceMember for %s again: it"
                + " skips the removal")
            .formatted(
                run.what(),
                replacement.name(),
                replacement.peerUrl(),
                replacement.host(),
                failed.why(),
                failed.logTail(),
                failed.undone(),
                failedMember,
                failed.clusterState(),
                replacement.host(),
                failedMember));
  }
}
