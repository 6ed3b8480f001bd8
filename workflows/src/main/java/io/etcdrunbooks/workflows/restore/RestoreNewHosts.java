package io.etcdrunbooks.workflows.restore;

import io.etcdrunbooks.workflows.activities.ApiServerActivities.SetEtcdServersRequest;
import io.etcdrunbooks.workflows.activities.InventoryActivities.RecordAdditionRequest;
import io.etcdrunbooks.workflows.activities.InventoryActivities.RecordRemovalRequest;
import io.etcdrunbooks.workflows.activities.InventoryActivities.RecordReplacementRequest;
import io.etcdrunbooks.workflows.activities.NewMemberActivities.NewMemberRequest;
import io.etcdrunbooks.workflows.activities.NewMemberActivities.PlacementRequest;
import io.etcdrunbooks.workflows.activities.NewMemberActivities.PrepareRequest;
import io.etcdrunbooks.workflows.activities.RestoreActivities.NewHostRequest;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.ProgressTracker;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.phases.Activities;
import io.temporal.failure.ActivityFailure;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A restore onto new hosts (RestoreRequest.newMembers): the backup becomes a new cluster there, and
 * the inventory and the kube-apiservers follow it; the old members are not touched (the plan names
 * them for the operator to stop and fence). Each step skips what is done.
 */
final class RestoreNewHosts {

  private RestoreNewHosts() {}

  /**
   * In DISCOVER: refuses a malformed list before any host is read, and makes the new members the
   * run's members (the inventory's kept as {@link RestoreRun#oldMembers}).
   */
  static void discover(RestoreRun run) {
    List<String> problems = NewHostsPlan.problems(run.request.newMembers(), run.members);
    if (!problems.isEmpty()) throw RestorePreflight.refused(run, problems);
    run.oldMembers = run.members;
    run.members = NewHostsPlan.completed(run.request.newMembers(), run.oldMembers);
  }

  /**
   * In PREFLIGHT: every new host logged in to, able to run the version and take the member (ports
   * free, paths creatable), and free: no etcd running there, no data in its data dir.
   */
  static void checkHosts(RestoreRun run, List<String> problems) {
    Activities activities = run.ctx.activities();
    ProgressTracker progress = run.ctx.progress();
    for (MemberPlacement m : run.members) {
      String version = run.versions.get(m.name());
      if (version == null || version.isEmpty()) continue; // no usable backup: named already
      try {
        progress.run(
            m.name() + ": host " + m.host() + " can run etcd " + version,
            () -> activities.newMember.checkHost(request(run, m)));
        progress.run(
            m.name() + ": host " + m.host() + " can take the member",
            () ->
                activities.newMember.checkPlacement(
                    new PlacementRequest(run.cluster(), m, version, true)));
        List<String> taken =
            progress.record(
                m.name() + ": host " + m.host() + " runs no etcd and holds no data",
                () -> activities.restore.newHostProblems(new NewHostRequest(run.cluster(), m)));
        taken.forEach(p -> problems.add("new member " + m.name() + ": " + p));
      } catch (ActivityFailure e) {
        problems.add("new member " + m.name() + ": " + Failures.rootMessage(e));
      }
    }
  }

  /** STOP_MEMBERS's place: each new host gets the version and the member's settings. */
  static void prepare(RestoreRun run) {
    ProgressTracker progress = run.ctx.progress();
    String initialCluster = initialCluster(run.members);
    for (MemberPlacement m : run.members) {
      progress.member(m.name());
      progress.run(
          "%s: prepare %s (etcd %s)".formatted(m.name(), m.host(), run.versions.get(m.name())),
          () ->
              run.ctx
                  .activities()
                  .newMember
                  .prepare(
                      new PrepareRequest(
                          run.cluster(), m, run.versions.get(m.name()), initialCluster)));
    }
  }

  /**
   * INVENTORY: the new members take the old ones' places, so that the members are started and
   * checked (START_MEMBERS, POSTFLIGHT) where the inventory says the cluster is.
   */
  static void recordInventory(RestoreRun run) {
    ProgressTracker progress = run.ctx.progress();
    Activities activities = run.ctx.activities();
    int shared = Math.min(run.members.size(), run.oldMembers.size());
    for (int i = 0; i < run.members.size(); i++) {
      MemberPlacement m = run.members.get(i);
      if (i < shared) {
        String old = run.oldMembers.get(i).name();
        progress.record(
            "inventory: " + m.name() + " in place of " + old,
            () ->
                activities.inventory.recordReplacement(
                    new RecordReplacementRequest(run.cluster(), old, m)));
      } else {
        progress.record(
            "inventory: " + m.name() + " added",
            () -> activities.inventory.recordAddition(new RecordAdditionRequest(run.cluster(), m)));
      }
    }
    for (int i = shared; i < run.oldMembers.size(); i++) {
      String old = run.oldMembers.get(i).name();
      progress.record(
          "inventory: " + old + " removed",
          () -> activities.inventory.recordRemoval(new RecordRemovalRequest(run.cluster(), old)));
    }
  }

  /** Before each kube-apiserver starts again: its stopped manifest names the new members. */
  static void pointApiServer(RestoreRun run, String host) {
    List<String> servers = run.members.stream().map(MemberPlacement::clientUrl).toList();
    run.ctx
        .progress()
        .record(
            host + ": --etcd-servers=" + String.join(",", servers),
            () ->
                run.ctx
                    .activities()
                    .apiServer
                    .setEtcdServers(new SetEtcdServersRequest(run.cluster(), host, servers)));
  }

  /** "m1 (10.0.0.1, http://10.0.0.1:2379)" for each old member, for the plan and the result. */
  static List<String> oldMembersLeftRunning(RestoreRun run) {
    return run.oldMembers.stream()
        .map(m -> "%s (%s, %s)".formatted(m.name(), m.host(), m.clientUrl()))
        .toList();
  }

  static String initialCluster(List<MemberPlacement> members) {
    return members.stream().map(m -> m.name() + "=" + m.peerUrl()).collect(Collectors.joining(","));
  }

  private static NewMemberRequest request(RestoreRun run, MemberPlacement m) {
    return new NewMemberRequest(run.cluster(), m, run.versions.get(m.name()));
  }
}
