package io.etcdrunbooks.workflows.downgrade;

import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.downgrade.DowngradeMembers.Stopped;
import io.etcdrunbooks.workflows.phases.ClusterDescription;
import io.etcdrunbooks.workflows.phases.Compensation;
import io.etcdrunbooks.workflows.phases.FailureMapping;
import io.etcdrunbooks.workflows.phases.PhaseFailed;
import io.temporal.failure.CanceledFailure;

/**
 * How a downgrade ends once it stopped part-way (a member that did not come up on the older
 * version, or an operator's cancel): etcd's downgrade cancelled and the members switched so far put
 * back (COMPENSATE), then a failure that says so, with the cluster's state and the next step.
 */
final class DowngradeCompensation implements FailureMapping<DowngradeRun> {

  @Override
  public RuntimeException failure(
      DowngradeRun run, PhaseFailed failed, Compensation.Outcome outcome) {
    Stopped at = (Stopped) failed.what();
    String cause = Failures.rootMessage(failed.failure());
    String where =
        at.cancelled()
            ? "%s to %s cancelled before member %s (%s)"
                .formatted(run.what(), run.toVersion(), at.member(), cause)
            : "%s to %s failed at member %s: %s"
                .formatted(run.what(), run.toVersion(), at.member(), cause);
    String state = ClusterDescription.describe(run.ctx.activities(), run.cluster());
    if (outcome.stoppedAt().isPresent()) {
      Compensation.UndoFailed undo = outcome.stoppedAt().get();
      return FailureType.DowngradeFailed.nonRetryable(
          ("%s. Undoing it failed at %s: %s; undone before that: %s. %s Next: inspect the members"
                  + " named above; `etcdctl downgrade cancel` while any member runs %s, then start"
                  + " the newer binaries on every member")
              .formatted(
                  where,
                  undo.what(),
                  Failures.rootMessage(undo.getCause()),
                  undo.undoneBefore(),
                  state,
                  run.toVersion()));
    }
    String undone =
        outcome.undone().isEmpty()
            ? "Nothing needed undoing."
            : "Undone: " + String.join(", ", outcome.undone()) + ".";
    if (at.cancelled()) {
      return new CanceledFailure("%s. %s %s".formatted(where, undone, state));
    }
    return FailureType.DowngradeRolledBack.nonRetryable(
        "%s. %s %s Next: fix %s's host (see its log) and start the downgrade again"
            .formatted(where, undone, state, at.member()));
  }
}
