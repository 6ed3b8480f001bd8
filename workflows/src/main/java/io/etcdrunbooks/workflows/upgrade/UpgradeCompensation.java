package io.etcdrunbooks.workflows.upgrade;

import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.EtcdVersion;
import io.etcdrunbooks.workflows.phases.ClusterDescription;
import io.etcdrunbooks.workflows.phases.Compensation;
import io.etcdrunbooks.workflows.phases.MemberVersionSwitch;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Workflow;
import java.util.ArrayList;
import java.util.List;

/**
 * A member did not come up on its rung's version. While the cluster version has not moved, the
 * rung's members go back to the rung's old version, newest first, and the runbook fails naming the
 * member, the cause and the cluster's state. A member that could not be stopped without costing
 * quorum halts the upgrade instead: the mixed cluster is supported.
 */
final class UpgradeCompensation {

  private final UpgradeRun run;
  private final LadderStep step;
  private final String failedMember;
  private final List<String> switched;
  private final MemberVersionSwitch switcher;
  private final Compensation compensation;

  UpgradeCompensation(
      UpgradeRun run,
      LadderStep step,
      String failedMember,
      List<String> switched,
      MemberVersionSwitch switcher,
      Compensation compensation) {
    this.run = run;
    this.step = step;
    this.failedMember = failedMember;
    this.switched = switched;
    this.switcher = switcher;
    this.compensation = compensation;
  }

  /** Compensates as far as it may and returns the runbook's failure. */
  RuntimeException failWith(RuntimeException failure) {
    String cause = Failures.rootMessage(failure);
    if (FailureType.QuorumAtRisk.isTypeOf(failure)) return halted(cause);
    String logTail = ClusterDescription.logTail(run.ctx.activities(), run.cluster(), failedMember);
    run.ctx.progress().phase(Phase.COMPENSATE);
    run.ctx.progress().message(failedMember + " failed on " + step.toVersion() + ": " + cause);
    ClusterState state = run.ctx.activities().etcd.discover(run.ctx.ref());
    String failedAt =
        "%s failed at member %s (%s): %s%s"
            .formatted(run.what(), failedMember, step.label(), cause, logTail);
    if (versionMoved(step, state) && othersHealthyOn(state)) {
      // added after the runbook shipped: histories recorded before it end as they did
      if (Workflow.getVersion(DEGRADED_ENDING, Workflow.DEFAULT_VERSION, 1) >= 1) {
        return degraded(state, cause, logTail);
      }
    }
    if (versionMoved(step, state)) {
      return FailureType.UpgradeRollbackFailed.nonRetryable(
          ("%s. The cluster version has already moved to %s, so the old binaries cannot be put"
                  + " back; the way back is restoring backup %s with the restore runbook. %s")
              .formatted(failedAt, state.clusterVersion(), run.backup.id(), describe()));
    }
    List<String> rolledBack;
    try {
      rolledBack = putBack();
    } catch (Compensation.UndoFailed e) {
      return putBackFailed(failedAt, e);
    }
    return FailureType.UpgradeRolledBack.nonRetryable(
        "%s. %s %s Next: fix %s's host (see its log) and start the upgrade again"
            .formatted(
                failedAt,
                rolledBackSentence(failedMember, step.fromVersion().toString(), rolledBack),
                describe(),
                failedMember));
  }

  static final String DEGRADED_ENDING = "upgraded-member-degraded";

  /**
   * Every member but the failed one healthy on the rung's version and the cluster version moved:
   * the cluster is upgraded. Putting members back cannot work and a restore would throw away every
   * write since the backup, for one member that needs fixing or replacing.
   */
  private boolean othersHealthyOn(ClusterState state) {
    return state.members().stream()
        .filter(m -> !m.name().equals(failedMember))
        .allMatch(m -> m.healthy() && step.toVersion().toString().equals(m.serverVersion()));
  }

  private ApplicationFailure degraded(ClusterState state, String cause, String logTail) {
    compensation.commit();
    String more =
        step.toVersion().equals(run.plan.targetVersion())
            ? ""
            : " The ladder stopped at %s: start the upgrade again for the rest once %s is fixed."
                .formatted(step.toVersion(), failedMember);
    return FailureType.UpgradedMemberDegraded.nonRetryable(
        ("%s: the cluster is upgraded (cluster version %s, every other member healthy on %s),"
                + " but member %s is degraded: %s%s. Do not restore: nothing needs to go back."
                + " Next: fix %s's host (its log above), or replace it with the ReplaceMember"
                + " runbook.%s %s")
            .formatted(
                run.what(),
                state.clusterVersion(),
                step.toVersion(),
                failedMember,
                cause,
                logTail,
                failedMember,
                more,
                describe()));
  }

  private ApplicationFailure putBackFailed(String failedAt, Compensation.UndoFailed e) {
    return FailureType.UpgradeRollbackFailed.nonRetryable(
        ("%s. Putting %s back failed too: %s. Rolled back before that: %s. %s Next: inspect the"
                + " members named above; backup %s holds the pre-upgrade data")
            .formatted(
                failedAt,
                step.fromVersion(),
                Failures.rootMessage(e.getCause()),
                e.undoneBefore(),
                describe(),
                run.backup.id()));
  }

  private ApplicationFailure halted(String cause) {
    compensation.commit(); // rolling members back would mean stopping them too
    return FailureType.UpgradeHalted.nonRetryable(
        ("%s halted before touching %s (%s): %s. Members already on %s: %s (a mixed cluster is"
                + " supported). %s Next: bring the unhealthy members back, then start the upgrade"
                + " again; members already upgraded are skipped")
            .formatted(
                run.what(),
                failedMember,
                step.label(),
                cause,
                step.toVersion(),
                switched,
                describe()));
  }

  /**
   * Once the cluster version has reached the rung's minor, members of the old minor cannot join any
   * more.
   */
  static boolean versionMoved(LadderStep step, ClusterState state) {
    return !step.fromVersion().sameMinor(step.toVersion())
        && EtcdVersion.find(state.clusterVersion()).map(step.toVersion()::sameMinor).orElse(false);
  }

  /** The members put back on the old version, in the order they were put back. */
  private List<String> putBack() {
    if (Workflow.getVersion("saga-compensation", Workflow.DEFAULT_VERSION, 1) >= 1)
      return compensation.undo().undone();
    // runs recorded before: the failed member first, then the others in the order they were
    // switched
    List<String> order = new ArrayList<>(List.of(failedMember));
    switched.stream().filter(m -> !m.equals(failedMember)).forEach(order::add);
    List<String> done = new ArrayList<>();
    for (String member : order) {
      try {
        if (switcher.switchTo(member, step.fromVersion().toString())) done.add(member);
      } catch (ActivityFailure | ApplicationFailure e) {
        throw new Compensation.UndoFailed(member, done, e);
      }
    }
    return done;
  }

  private String describe() {
    return ClusterDescription.describe(run.ctx.activities(), run.cluster());
  }

  /** "Rolled back [m1, m2] to 3.4.23. m3 was still healthy on 3.4.23 and was left as it was." */
  static String rolledBackSentence(
      String failedMember, String fromVersion, List<String> rolledBack) {
    String sentence =
        rolledBack.isEmpty()
            ? "No member had to be rolled back."
            : "Rolled back " + rolledBack + " to " + fromVersion + ".";
    return rolledBack.contains(failedMember)
        ? sentence
        : "%s %s was still healthy on %s and was left as it was."
            .formatted(sentence, failedMember, fromVersion);
  }
}
