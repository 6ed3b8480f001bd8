package io.etcdrunbooks.workflows.replacemember;

import io.etcdrunbooks.workflows.activities.MembershipActivities.RemoveMemberRequest;
import io.etcdrunbooks.workflows.activities.NewMemberActivities.NewMemberRequest;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.phases.ClusterDescription;
import io.etcdrunbooks.workflows.phases.Compensation;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import java.util.ArrayList;
import java.util.List;

/**
 * The way back from a join that failed (COMPENSATE): the new member is removed from the membership
 * again and its etcd stopped, its data dir kept aside, so the cluster is back to its healthy
 * members. Each undo is tried even when the other failed; what could not be undone is named in the
 * failure, with what to do by hand. The failed member stays removed: running the runbook again
 * skips the removal.
 */
final class JoinCompensation {

  private final ReplaceRun run;
  private final MemberPlacement replacement;
  private final NewMemberRequest onHost;
  private final List<String> notUndone = new ArrayList<>();

  JoinCompensation(ReplaceRun run) {
    this.run = run;
    this.replacement = run.replacement();
    this.onHost = new NewMemberRequest(run.cluster(), replacement, run.version);
  }

  /** Undoes the join as far as it goes and returns the runbook's failure. */
  ApplicationFailure failWith(RuntimeException cause, Compensation compensation) {
    String why = Failures.rootMessage(cause);
    String log = logTail();
    run.ctx.progress().phase(Phase.COMPENSATE);
    run.ctx
        .progress()
        .message(replacement.name() + " could not join: " + why + "; removing it again");
    compensation.undo();
    String state = ClusterDescription.describe(run.ctx.activities(), run.cluster());
    String failed = run.failed().name();
    return FailureType.ReplacementJoinFailed.nonRetryable(
        ("%s failed: the new member %s (%s on %s) could not join: %s%s%s %s stays removed. %s"
                + " Next: fix %s (see the log above), then start ReplaceMember for %s again: it"
                + " skips the removal")
            .formatted(
                run.what(),
                replacement.name(),
                replacement.peerUrl(),
                replacement.host(),
                why,
                log,
                undoneSentence(),
                failed,
                state,
                replacement.host(),
                failed));
  }

  private String undoneSentence() {
    return notUndone.isEmpty()
        ? ". It was removed from the membership again and its etcd stopped; its data dir is kept"
            + " aside."
        : ". Undoing it was not complete: " + String.join("; ", notUndone) + ".";
  }

  boolean removeFromMembership() {
    try {
      run.ctx
          .progress()
          .run(
              "compensate: remove " + replacement.name() + " from the etcd membership",
              () ->
                  run.ctx
                      .activities()
                      .membership
                      .removeMember(new RemoveMemberRequest(run.cluster(), replacement.peerUrl())));
      return true;
    } catch (ActivityFailure e) {
      notUndone.add(
          ("removing it again failed (%s): remove the member with peer URL %s by hand (etcdctl"
                  + " member list, then etcdctl member remove <id>)")
              .formatted(Failures.rootMessage(e), replacement.peerUrl()));
      return false;
    }
  }

  boolean stopAndKeepDataDirAside() {
    try {
      run.ctx
          .progress()
          .run(
              "compensate: stop " + replacement.name() + " and keep its data dir aside",
              () -> run.ctx.activities().newMember.discard(onHost));
      return true;
    } catch (ActivityFailure e) {
      notUndone.add(
          "stopping it on %s failed (%s): stop it by hand"
              .formatted(replacement.host(), Failures.rootMessage(e)));
      return false;
    }
  }

  /** ". Last log lines of m4:\n..." for the failure, read before the member is stopped. */
  private String logTail() {
    try {
      String tail = run.ctx.activities().newMember.logTail(onHost).strip();
      return tail.isEmpty()
          ? ""
          : ". Last log lines of " + replacement.name() + ":\n" + tail + "\n";
    } catch (ActivityFailure e) {
      return " (its log is unreadable: " + Failures.rootMessage(e) + ")";
    }
  }
}
