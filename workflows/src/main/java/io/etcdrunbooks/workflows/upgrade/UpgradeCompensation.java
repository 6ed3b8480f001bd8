package io.etcdrunbooks.workflows.upgrade;

import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.EtcdVersion;
import io.etcdrunbooks.workflows.phases.ClusterDescription;
import io.etcdrunbooks.workflows.phases.Compensation;
import io.etcdrunbooks.workflows.phases.FailureMapping;
import io.etcdrunbooks.workflows.phases.MemberVersionSwitch;
import io.etcdrunbooks.workflows.phases.PhaseFailed;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * How an upgrade fails once a member did not come up on its rung's version ({@link MemberFailed}).
 * While the cluster version has not moved, the phase runner puts the rung's members back on the
 * rung's old version, newest first, and the runbook fails naming the member, the cause and the
 * cluster's state. A member that could not be stopped without costing quorum halts the upgrade
 * instead ({@link #halted}): the mixed cluster is supported.
 */
final class UpgradeCompensation implements FailureMapping<UpgradeRun> {

  /**
   * The member that did not come up on {@code step}'s version, with the members switched before it
   * and its last log lines (read before anything is put back).
   */
  record MemberFailed(
      LadderStep step,
      String member,
      List<String> switched,
      MemberVersionSwitch switcher,
      String logTail) {}

  @Override
  public Optional<RuntimeException> insteadOfUndos(UpgradeRun run, PhaseFailed failed) {
    MemberFailed m = (MemberFailed) failed.what();
    LadderStep step = m.step();
    String cause = Failures.rootMessage(failed.failure());
    run.ctx.progress().message(m.member() + " failed on " + step.toVersion() + ": " + cause);
    ClusterState state = run.ctx.activities().etcd.discover(run.ctx.ref());
    if (versionMoved(step, state) && othersHealthyOn(m, state)) {
      // added after the runbook shipped: histories recorded before it end as they did
      if (UpgradePatches.DEGRADED_ENDING.applies()) {
        return Optional.of(degraded(run, m, state, cause));
      }
    }
    if (versionMoved(step, state)) {
      return Optional.of(
          FailureType.UpgradeRollbackFailed.nonRetryable(
              ("%s. The cluster version has already moved to %s, so the old binaries cannot be put"
                      + " back; the way back is restoring backup %s with the restore runbook. %s")
                  .formatted(
                      failedAt(run, m, cause),
                      state.clusterVersion(),
                      run.backup.id(),
                      describe(run))));
    }
    if (UpgradePatches.SAGA_COMPENSATION.applies()) return Optional.empty();
    return Optional.of(putBackInSwitchOrder(run, m, cause));
  }

  @Override
  public RuntimeException failure(
      UpgradeRun run, PhaseFailed failed, Compensation.Outcome outcome) {
    MemberFailed m = (MemberFailed) failed.what();
    return ending(run, m, Failures.rootMessage(failed.failure()), outcome);
  }

  private static RuntimeException ending(
      UpgradeRun run, MemberFailed m, String cause, Compensation.Outcome outcome) {
    String failedAt = failedAt(run, m, cause);
    if (outcome.stoppedAt().isPresent())
      return putBackFailed(run, m, failedAt, outcome.stoppedAt().get());
    return FailureType.UpgradeRolledBack.nonRetryable(
        "%s. %s %s Next: fix %s's host (see its log) and start the upgrade again"
            .formatted(
                failedAt,
                rolledBackSentence(m.member(), m.step().fromVersion().toString(), outcome.undone()),
                describe(run),
                m.member()));
  }

  private static String failedAt(UpgradeRun run, MemberFailed m, String cause) {
    return "%s failed at member %s (%s): %s%s"
        .formatted(run.what(), m.member(), m.step().label(), cause, m.logTail());
  }

  /**
   * Every member but the failed one healthy on the rung's version and the cluster version moved:
   * the cluster is upgraded. Putting members back cannot work and a restore would throw away every
   * write since the backup, for one member that needs fixing or replacing.
   */
  private static boolean othersHealthyOn(MemberFailed failed, ClusterState state) {
    return state.members().stream()
        .filter(m -> !m.name().equals(failed.member()))
        .allMatch(
            m -> m.healthy() && failed.step().toVersion().toString().equals(m.serverVersion()));
  }

  private static ApplicationFailure degraded(
      UpgradeRun run, MemberFailed m, ClusterState state, String cause) {
    LadderStep step = m.step();
    String failedMember = m.member();
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
                m.logTail(),
                failedMember,
                more,
                describe(run)));
  }

  private static ApplicationFailure putBackFailed(
      UpgradeRun run, MemberFailed m, String failedAt, Compensation.UndoFailed e) {
    return FailureType.UpgradeRollbackFailed.nonRetryable(
        ("%s. Putting %s back failed too: %s. Rolled back before that: %s. %s Next: inspect the"
                + " members named above; backup %s holds the pre-upgrade data")
            .formatted(
                failedAt,
                m.step().fromVersion(),
                Failures.rootMessage(e.getCause()),
                e.undoneBefore(),
                describe(run),
                run.backup.id()));
  }

  /**
   * The rung's member {@code failed} could not be stopped without costing quorum: nothing is put
   * back (that would mean stopping members too) and the upgrade halts; the caller forgets the
   * rung's undos.
   */
  static ApplicationFailure halted(
      UpgradeRun run, LadderStep step, String failedMember, List<String> switched, String cause) {
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
                describe(run)));
  }

  /**
   * Once the cluster version has reached the rung's minor, members of the old minor cannot join any
   * more.
   */
  static boolean versionMoved(LadderStep step, ClusterState state) {
    return !step.fromVersion().sameMinor(step.toVersion())
        && EtcdVersion.find(state.clusterVersion()).map(step.toVersion()::sameMinor).orElse(false);
  }

  /**
   * Runs recorded before the saga put members back themselves: the failed member first, then the
   * others in the order they were switched.
   */
  private static RuntimeException putBackInSwitchOrder(
      UpgradeRun run, MemberFailed m, String cause) {
    List<String> order = new ArrayList<>(List.of(m.member()));
    m.switched().stream().filter(s -> !s.equals(m.member())).forEach(order::add);
    List<String> done = new ArrayList<>();
    for (String member : order) {
      try {
        if (m.switcher().switchTo(member, m.step().fromVersion().toString())) done.add(member);
      } catch (ActivityFailure | ApplicationFailure e) {
        return ending(
            run,
            m,
            cause,
            new Compensation.Outcome(
                done, Optional.of(new Compensation.UndoFailed(member, List.copyOf(done), e))));
      }
    }
    return ending(run, m, cause, new Compensation.Outcome(done, Optional.empty()));
  }

  private static String describe(UpgradeRun run) {
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
