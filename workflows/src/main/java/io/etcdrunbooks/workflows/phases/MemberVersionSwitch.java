package io.etcdrunbooks.workflows.phases;

import io.etcdrunbooks.workflows.activities.EtcdActivities.MoveLeaderRequest;
import io.etcdrunbooks.workflows.activities.HostActivities.RestartOutcome;
import io.etcdrunbooks.workflows.activities.HostActivities.RestartRequest;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.ProgressTracker;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.MemberStatus;
import io.temporal.workflow.Workflow;
import java.util.Comparator;
import java.util.Optional;

/**
 * Moves one member to a version: hand leadership away if it leads, then restart it on the version
 * in one activity that returns once it is healthy, caught up and reports the version. Used forwards
 * by the upgrade and backwards by its compensation and by rollback. Runs started before the restart
 * was one activity restart their members the old ways ({@link LegacyMemberSwitch}).
 */
public final class MemberVersionSwitch {

  private final Activities activities;
  private final ProgressTracker progress;
  private final String cluster;
  private final int memberTimeoutSeconds;
  private final LegacyMemberSwitch legacy;
  private Optional<ClusterState> readAfterLastRestart = Optional.empty();

  public MemberVersionSwitch(
      Activities activities, ProgressTracker progress, String cluster, int memberTimeoutSeconds) {
    this.activities = activities;
    this.progress = progress;
    this.cluster = cluster;
    this.memberTimeoutSeconds = memberTimeoutSeconds;
    this.legacy = new LegacyMemberSwitch(activities, progress, cluster, memberTimeoutSeconds);
  }

  /**
   * The cluster as the last {@link #switchTo} read it once its member was ready, inside the same
   * activity; empty when that switch did not restart a member in one activity or the read failed.
   * Only as fresh as the caller makes sure it is: nothing may have waited since.
   */
  public Optional<ClusterState> readAfterLastRestart() {
    return readAfterLastRestart;
  }

  /** Whether the member already runs the version and is healthy, so it needs no restart. */
  public static boolean alreadyOn(ClusterState state, String member, String version) {
    return state
        .member(member)
        .map(m -> m.healthy() && version.equals(m.serverVersion()))
        .orElse(false);
  }

  /**
   * Switches the member; returns false when it already ran the version healthily and nothing was
   * done. Throws when a step fails; the caller decides how to compensate.
   */
  public boolean switchTo(String member, String version) {
    return switchTo(member, version, Optional.empty());
  }

  /**
   * As {@link #switchTo(String, String)}, on {@code justRead} when the caller read the cluster a
   * moment ago (nothing changed since), instead of reading it again.
   */
  public boolean switchTo(String member, String version, Optional<ClusterState> justRead) {
    readAfterLastRestart = Optional.empty();
    progress.member(member);
    ClusterState state =
        justRead.orElseGet(() -> activities.etcd.discover(new ClusterRef(cluster)));
    if (alreadyOn(state, member, version)) {
      progress.skipped(member + ": " + version, "already running " + version + " and healthy");
      return false;
    }
    Optional<String> unsafe = QuorumGuard.whyUnsafeToStop(state, member);
    if (unsafe.isPresent() && state.member(member).map(MemberStatus::healthy).orElse(false)) {
      throw FailureType.QuorumAtRisk.nonRetryable(unsafe.get());
    }
    if (member.equals(state.leaderName())) {
      String transferee = transferee(state, member, version);
      progress.run(
          member + ": hand leadership to " + transferee,
          () -> activities.etcd.moveLeader(new MoveLeaderRequest(cluster, transferee)));
    }
    if (legacy.restartedTheOldWay(member, version)) return true;
    RestartOutcome done =
        progress.record(
            member + ": stop, switch, start: ready on " + version,
            () ->
                activities.hostRestart.restartMember(
                    new RestartRequest(cluster, member, version, memberTimeoutSeconds)));
    progress.message(
        member
            + ": "
            + String.join(", ", done.steps())
            + (done.flagChanges().isEmpty() ? "" : "; flags translated: " + done.flagChanges()));
    progress.memberRestarted(member, version, Workflow.currentTimeMillis() - done.downMillis());
    readAfterLastRestart = Optional.ofNullable(done.after());
    return true;
  }

  /** A healthy member already on the version when there is one, else any healthy voting member. */
  private static String transferee(ClusterState state, String leader, String version) {
    return state.members().stream()
        .filter(m -> !m.name().equals(leader) && m.healthy() && !m.learner())
        .sorted(
            Comparator.comparing((MemberStatus m) -> !version.equals(m.serverVersion()))
                .thenComparing(MemberStatus::name))
        .map(MemberStatus::name)
        .findFirst()
        .orElseThrow(
            () ->
                FailureType.QuorumAtRisk.nonRetryable(
                    "leader %s cannot hand over leadership: no other healthy voting member"
                        .formatted(leader)));
  }
}
