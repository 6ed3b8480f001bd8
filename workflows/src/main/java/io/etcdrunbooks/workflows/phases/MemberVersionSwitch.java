package io.etcdrunbooks.workflows.phases;

import io.etcdrunbooks.workflows.activities.EtcdActivities.AwaitMemberRequest;
import io.etcdrunbooks.workflows.activities.EtcdActivities.MoveLeaderRequest;
import io.etcdrunbooks.workflows.activities.HostActivities.InstallRequest;
import io.etcdrunbooks.workflows.activities.HostActivities.RestartOutcome;
import io.etcdrunbooks.workflows.activities.HostActivities.RestartRequest;
import io.etcdrunbooks.workflows.activities.HostActivities.SwitchOutcome;
import io.etcdrunbooks.workflows.activities.HostActivities.TranslateFlagsRequest;
import io.etcdrunbooks.workflows.activities.HostActivities.WatchRequest;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.ProgressTracker;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.MemberRef;
import io.etcdrunbooks.workflows.model.MemberStatus;
import io.temporal.workflow.Async;
import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Moves one member to a version: hand leadership away if it leads, stop, install, start, wait until
 * it is healthy, caught up and reports the version. Used forwards by the upgrade and backwards by
 * its compensation and by rollback.
 */
public final class MemberVersionSwitch {

  private final Activities activities;
  private final ProgressTracker progress;
  private final String cluster;
  private final int memberTimeoutSeconds;
  private Optional<ClusterState> readAfterLastRestart = Optional.empty();

  public MemberVersionSwitch(
      Activities activities, ProgressTracker progress, String cluster, int memberTimeoutSeconds) {
    this.activities = activities;
    this.progress = progress;
    this.cluster = cluster;
    this.memberTimeoutSeconds = memberTimeoutSeconds;
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
    MemberRef ref = new MemberRef(cluster, member);
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
    AwaitMemberRequest ready =
        new AwaitMemberRequest(cluster, member, version, memberTimeoutSeconds);
    long stoppedAt = Workflow.currentTimeMillis();
    boolean readyWhileWatched =
        Workflow.getVersion(READY_WHILE_WATCHED, Workflow.DEFAULT_VERSION, 1) >= 1;
    if (readyWhileWatched
        && Workflow.getVersion(RESTART_IN_ONE_ACTIVITY, Workflow.DEFAULT_VERSION, 1) >= 1) {
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
    if (readyWhileWatched) {
      long called = Workflow.currentTimeMillis();
      SwitchOutcome done =
          progress.record(
              member + ": stop, switch to " + version + ", start",
              () -> activities.host.switchVersion(new InstallRequest(cluster, member, version)));
      // the member went down only once the call's own checks were done
      stoppedAt = called + done.beforeStopMillis();
      progress.message(
          member
              + ": "
              + String.join(", ", done.steps())
              + (done.flagChanges().isEmpty() ? "" : "; flags translated: " + done.flagChanges()));
      progress.run(member + ": ready on " + version, () -> awaitReadyWhileWatched(ready));
    } else {
      progress.run(member + ": stop", () -> activities.host.stopMember(ref));
      translateFlags(member, version);
      progress.run(
          member + ": install " + version,
          () -> activities.host.installVersion(new InstallRequest(cluster, member, version)));
      progress.run(member + ": start", () -> activities.host.startMember(ref));
      progress.run(
          member + ": healthy on " + version, () -> activities.etcdWait.awaitMemberReady(ready));
    }
    progress.memberRestarted(member, version, stoppedAt);
    return true;
  }

  /**
   * The member's readiness (health, raft caught up, version), while its process is watched: an etcd
   * that exits fails the switch at once with its log, not after the readiness timeout. The watch
   * ends when the member is ready; the next member's quorum check reads its health again before
   * anything else stops.
   */
  private void awaitReadyWhileWatched(AwaitMemberRequest request) {
    List<Promise<MemberStatus>> ready = new ArrayList<>(1);
    List<Promise<Void>> watch = new ArrayList<>(1);
    CancellationScope readiness =
        Workflow.newCancellationScope(
            () -> ready.add(Async.function(activities.etcdWait::awaitMemberReady, request)));
    CancellationScope watching =
        Workflow.newCancellationScope(
            () ->
                watch.add(
                    Async.procedure(
                        activities.hostWatch::watchMember,
                        new WatchRequest(cluster, request.member(), memberTimeoutSeconds))));
    readiness.run();
    watching.run();
    Workflow.await(() -> ready.get(0).isCompleted() || exited(watch.get(0)));
    if (!ready.get(0).isCompleted()) {
      readiness.cancel();
      throw watch.get(0).getFailure();
    }
    // a watch already over (its window ran out) is not cancelled: cancelling a finished activity
    // is refused by the server
    if (!watch.get(0).isCompleted()) watching.cancel();
    watch.get(0).exceptionally(cancelled -> null); // its cancellation is expected, not a failure
    ready.get(0).get();
  }

  /**
   * The watch saw etcd exit. A watch that failed otherwise (a missed heartbeat on a loaded worker,
   * a host it could not reach) only stops watching: the readiness wait decides.
   */
  private static boolean exited(Promise<Void> watch) {
    return watch.isCompleted()
        && watch.getFailure() != null
        && MEMBER_START_FAILED.equals(Failures.rootType(watch.getFailure()));
  }

  private static final String MEMBER_START_FAILED = "MemberStartFailed";

  /**
   * The restart in one activity, then readiness while the process is watched, in place of four
   * activities and a fixed stay-up wait.
   */
  public static final String READY_WHILE_WATCHED = "ready-while-watched";

  /**
   * The restart and the readiness in one activity, measured on the worker: no Temporal round trip
   * (activity completion, workflow task, next activity's dispatch) inside the member's down time.
   */
  public static final String RESTART_IN_ONE_ACTIVITY = "restart-in-one-activity";

  /**
   * Renamed flags translated where the member's flags live, for the version it starts on next: on
   * the way up and on the way back (compensation, rollback) alike.
   */
  private void translateFlags(String member, String version) {
    // added after the runbooks shipped: histories recorded before it replay without the step
    if (Workflow.getVersion(TRANSLATE_FLAGS, Workflow.DEFAULT_VERSION, 1) < 1) return;
    List<String> changes =
        progress.record(
            member + ": flags for " + version,
            () ->
                activities.host.translateFlags(
                    new TranslateFlagsRequest(cluster, member, version, true)));
    if (!changes.isEmpty()) progress.message(member + ": flags translated: " + changes);
  }

  /** Shared by the switch and the upgrade's preflight, which says what will be translated. */
  public static final String TRANSLATE_FLAGS = "translate-flags";

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
