package io.etcdrunbooks.workflows.downgrade;

import io.etcdrunbooks.workflows.activities.DowngradeActivities.DowngradeStatus;
import io.etcdrunbooks.workflows.activities.DowngradeActivities.DowngradeTarget;
import io.etcdrunbooks.workflows.activities.DowngradeActivities.StorageVersionWait;
import io.etcdrunbooks.workflows.common.ProgressTracker;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.MemberStatus;
import io.etcdrunbooks.workflows.phases.Compensation;
import io.etcdrunbooks.workflows.phases.MemberVersionSwitch;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.CanceledFailure;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The PLAN and DOWNGRADE of a downgrade: etcd's downgrade enabled, the storage version awaited,
 * then each member switched to the older binaries with the upgrade's member switch (its flags
 * translated for the older version), the leader last. Before each member the downgrade's cancel is
 * registered again as the newest undo, so a failure cancels it in etcd first, while the cluster is
 * still mixed, and then puts the members switched so far back.
 */
final class DowngradeMembers {

  /** Where the downgrade stopped: at a member's switch, or an operator's cancel before it. */
  record Stopped(String member, boolean cancelled) {}

  private DowngradeMembers() {}

  static void plan(DowngradeRun run) {
    run.members = followersFirstLeaderLast(run.state, run.toVersion());
    String enable =
        run.before.enabledTo(run.targetMinor())
            ? "etcd's downgrade to %s is already enabled".formatted(run.targetMinor())
            : "enable etcd's downgrade to %s".formatted(run.targetMinor());
    run.ctx
        .progress()
        .message(
            run.members.isEmpty()
                ? "every member already runs " + run.toVersion()
                : "%s, wait for storage version %s.0, then switch %s to %s one at a time (leader %s last)"
                    .formatted(
                        enable,
                        run.targetMinor(),
                        run.members,
                        run.toVersion(),
                        run.state.leaderName()));
  }

  static String firstChange(DowngradeRun run) {
    return "etcd's downgrade to " + run.targetMinor() + " is enabled";
  }

  static void run(DowngradeRun run) {
    ProgressTracker progress = run.ctx.progress();
    progress.stopIfCancelled(firstChange(run));
    progress.step("-> " + run.toVersion());
    Compensation undos = run.ctx.undos();
    String minor = run.targetMinor();
    registerCancel(run, undos);
    progress.record(
        "etcd downgrade enable " + minor,
        () -> run.ctx.activities().downgrade.enable(new DowngradeTarget(run.cluster(), minor)));
    DowngradeStatus status =
        progress.record(
            "storage version " + minor + ".0",
            () ->
                run.ctx
                    .activities()
                    .downgradeWait
                    .awaitStorageVersion(
                        new StorageVersionWait(
                            run.cluster(),
                            minor,
                            run.request.effectiveMemberTimeoutSeconds(),
                            false)));
    run.storageVersion = status.storageVersions().values().stream().findFirst().orElse("");
    MemberVersionSwitch switcher =
        new MemberVersionSwitch(
            run.ctx.activities(),
            progress,
            run.cluster(),
            run.request.effectiveMemberTimeoutSeconds());
    for (String member : run.members) {
      try {
        progress.safePoint("member " + member);
      } catch (CanceledFailure e) {
        throw undos.failed(e, new Stopped(member, true));
      }
      String back = run.versionsBefore.get(member);
      undos.register(member + " back on " + back, () -> switcher.switchTo(member, back));
      registerCancel(run, undos);
      try {
        switcher.switchTo(member, run.toVersion());
      } catch (ActivityFailure | ApplicationFailure e) {
        throw undos.failed(e, new Stopped(member, false));
      }
    }
    undos.commit();
    progress.member("");
  }

  /**
   * The newest undo is etcd's downgrade cancel: it runs first, while the cluster is still mixed.
   */
  private static void registerCancel(DowngradeRun run, Compensation undos) {
    undos.register(
        "etcd downgrade cancel",
        () ->
            run.ctx
                .progress()
                .record(
                    "etcd downgrade cancel",
                    () -> run.ctx.activities().downgrade.cancel(run.ctx.ref())));
  }

  /** Members not healthy on the target, followers first by name, the leader last. */
  static List<String> followersFirstLeaderLast(ClusterState state, String toVersion) {
    List<String> order = new ArrayList<>();
    state.members().stream()
        .filter(m -> !MemberVersionSwitch.alreadyOn(state, m.name(), toVersion))
        .sorted(
            Comparator.comparing((MemberStatus m) -> m.name().equals(state.leaderName()))
                .thenComparing(MemberStatus::name))
        .map(MemberStatus::name)
        .forEach(order::add);
    return List.copyOf(order);
  }
}
