package io.etcdrunbooks.workflows.restore;

import io.etcdrunbooks.workflows.activities.EtcdActivities.AwaitClusterVersionRequest;
import io.etcdrunbooks.workflows.activities.EtcdActivities.AwaitMemberRequest;
import io.etcdrunbooks.workflows.activities.HostActivities.InstallRequest;
import io.etcdrunbooks.workflows.activities.HostActivities.TranslateFlagsRequest;
import io.etcdrunbooks.workflows.activities.RestoreActivities.MemberRestoreRequest;
import io.etcdrunbooks.workflows.activities.RestoreActivities.RestoreMemberRequest;
import io.etcdrunbooks.workflows.common.ProgressTracker;
import io.etcdrunbooks.workflows.model.EtcdVersion;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.model.MemberRef;
import io.etcdrunbooks.workflows.phases.Activities;
import java.util.stream.Collectors;

/**
 * The members through a restore: each stopped with its data dir kept aside (STOP_MEMBERS), the
 * backup restored on each (RESTORE), all started again and healthy (START_MEMBERS). Every step
 * skips what is done, so a restore started again never restores a member twice.
 */
final class RestoreMembers {

  private RestoreMembers() {}

  static void stop(RestoreRun run) {
    ProgressTracker progress = run.ctx.progress();
    Activities activities = run.ctx.activities();
    for (MemberPlacement m : run.members) {
      progress.member(m.name());
      progress.run(
          m.name() + ": stop",
          () -> activities.host.stopMember(new MemberRef(run.cluster(), m.name())));
      run.keptAside.put(
          m.name(),
          progress.record(
              m.name() + ": keep the data dir aside",
              () ->
                  activities.restore.keepDataDirAside(
                      new MemberRestoreRequest(run.cluster(), m.name(), run.restoreId))));
      if (!run.target.isEmpty()) {
        progress.run(
            m.name() + ": install " + run.target,
            () ->
                activities.host.installVersion(
                    new InstallRequest(run.cluster(), m.name(), run.target)));
        if (RestorePreflight.translatesFlags(run)) {
          // a 3.6 member's --feature-gates would keep 3.5 from starting (FlagTranslations)
          progress.record(
              m.name() + ": translate its flags for " + run.target,
              () ->
                  activities.host.translateFlags(
                      new TranslateFlagsRequest(run.cluster(), m.name(), run.target, true)));
        }
      }
    }
  }

  static void restore(RestoreRun run) {
    ProgressTracker progress = run.ctx.progress();
    String initialCluster =
        run.members.stream()
            .map(m -> m.name() + "=" + m.peerUrl())
            .collect(Collectors.joining(","));
    String token = run.cluster() + "-" + run.restoreId;
    for (MemberPlacement m : run.members) {
      progress.member(m.name());
      run.bump =
          progress.record(
              m.name() + ": restore backup " + run.backup.id(),
              () ->
                  run.ctx
                      .activities()
                      .restore
                      .restoreMember(
                          new RestoreMemberRequest(
                              run.cluster(),
                              m.name(),
                              run.backup.id(),
                              run.restoreId,
                              initialCluster,
                              token,
                              run.restoreTools.getOrDefault(m.name(), ""),
                              // onto new hosts: not in the inventory until INVENTORY
                              run.ontoNewHosts ? m : null)));
    }
  }

  static void start(RestoreRun run) {
    ProgressTracker progress = run.ctx.progress();
    Activities activities = run.ctx.activities();
    int timeout = run.request.effectiveMemberTimeoutSeconds();
    for (MemberPlacement m : run.members) {
      progress.member(m.name());
      progress.run(
          m.name() + ": start",
          () -> activities.host.startMember(new MemberRef(run.cluster(), m.name())));
    }
    for (MemberPlacement m : run.members) {
      progress.run(
          m.name() + ": healthy",
          () ->
              activities.etcdWait.awaitMemberReady(
                  new AwaitMemberRequest(
                      run.cluster(), m.name(), run.versions.get(m.name()), timeout)));
    }
    // a restored cluster reports version 3.0.0 until its members agree on one again
    String minor =
        run.versions.values().stream()
            .map(EtcdVersion::parse)
            .min(EtcdVersion::compareTo)
            .orElseThrow()
            .minorLabel();
    progress.run(
        "cluster version " + minor,
        () ->
            activities.etcdWait.awaitClusterVersion(
                new AwaitClusterVersionRequest(run.cluster(), minor, timeout)));
  }
}
