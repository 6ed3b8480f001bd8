package io.etcdrunbooks.workflows.phases;

import io.etcdrunbooks.workflows.activities.EtcdActivities.AwaitMemberRequest;
import io.etcdrunbooks.workflows.activities.HostActivities.InstallRequest;
import io.etcdrunbooks.workflows.activities.HostActivities.SwitchOutcome;
import io.etcdrunbooks.workflows.activities.HostActivities.TranslateFlagsRequest;
import io.etcdrunbooks.workflows.activities.HostActivities.WatchRequest;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.ProgressTracker;
import io.etcdrunbooks.workflows.model.MemberRef;
import io.etcdrunbooks.workflows.model.MemberStatus;
import io.temporal.workflow.Async;
import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.util.ArrayList;
import java.util.List;

/**
 * Replay only: the two generations of a member's restart before {@link
 * PhasePatches#RESTART_IN_ONE_ACTIVITY}, for runs whose history has no marker for it. The first
 * (before {@link PhasePatches#READY_WHILE_WATCHED}) stops, translates flags, installs, starts and
 * waits for readiness in five activities; the second switches in one activity ({@code
 * switchVersion}) and waits for readiness while the process is watched. Goes, with the histories
 * the two patches name, once no run started before 2026-11-26 is open
 * (docs/development/patches.md).
 */
final class LegacyMemberSwitch {

  private static final String MEMBER_START_FAILED = "MemberStartFailed";

  private final Activities activities;
  private final ProgressTracker progress;
  private final String cluster;
  private final int memberTimeoutSeconds;

  LegacyMemberSwitch(
      Activities activities, ProgressTracker progress, String cluster, int memberTimeoutSeconds) {
    this.activities = activities;
    this.progress = progress;
    this.cluster = cluster;
    this.memberTimeoutSeconds = memberTimeoutSeconds;
  }

  /**
   * Restarts the member on the version the way the run did when it started, and returns true; or
   * returns false, doing nothing, when the run restarts members in one activity. Asked where the
   * switch asked it before: after the leadership hand-over, before the member stops.
   */
  boolean restartedTheOldWay(String member, String version) {
    long stoppedAt = Workflow.currentTimeMillis();
    boolean readyWhileWatched = PhasePatches.READY_WHILE_WATCHED.applies();
    if (readyWhileWatched && PhasePatches.RESTART_IN_ONE_ACTIVITY.applies()) return false;
    AwaitMemberRequest ready =
        new AwaitMemberRequest(cluster, member, version, memberTimeoutSeconds);
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
      MemberRef ref = new MemberRef(cluster, member);
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

  /**
   * Renamed flags translated where the member's flags live, for the version it starts on next: on
   * the way up and on the way back (compensation, rollback) alike.
   */
  private void translateFlags(String member, String version) {
    if (!PhasePatches.TRANSLATE_FLAGS.applies()) return;
    List<String> changes =
        progress.record(
            member + ": flags for " + version,
            () ->
                activities.host.translateFlags(
                    new TranslateFlagsRequest(cluster, member, version, true)));
    if (!changes.isEmpty()) progress.message(member + ": flags translated: " + changes);
  }
}
