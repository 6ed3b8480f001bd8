package io.etcdrunbooks.workflows.recover;

import io.etcdrunbooks.workflows.activities.ApiServerActivities.SetEtcdServersRequest;
import io.etcdrunbooks.workflows.activities.EtcdActivities.AwaitMemberRequest;
import io.etcdrunbooks.workflows.activities.HostActivities.RestoreMemberFlagsRequest;
import io.etcdrunbooks.workflows.activities.HostActivities.SetMemberFlagsRequest;
import io.etcdrunbooks.workflows.activities.InventoryActivities.RecordReplacementRequest;
import io.etcdrunbooks.workflows.activities.RecoveryActivities.RecoveryMemberRequest;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.ProgressTracker;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.common.RunbookSearchAttributes;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.model.MemberRef;
import io.etcdrunbooks.workflows.phases.Activities;
import io.etcdrunbooks.workflows.phases.ApiServerRollout;
import io.etcdrunbooks.workflows.phases.ApiServersOffline;
import io.etcdrunbooks.workflows.phases.KubeadmConfigSync;
import io.etcdrunbooks.workflows.phases.MemberJoin;
import io.etcdrunbooks.workflows.phases.PostflightCheck;
import io.etcdrunbooks.workflows.restore.RestoreClusterWorkflow;
import io.etcdrunbooks.workflows.restore.RestoreRequest;
import io.etcdrunbooks.workflows.restore.RestoreResult;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.ChildWorkflowFailure;
import io.temporal.workflow.ChildWorkflowOptions;
import io.temporal.workflow.Workflow;
import java.util.List;
import java.util.Map;

/** The phases of a recovery that show the plan and change the cluster. */
final class RecoverSteps {

  private static final String FORCE_NEW_CLUSTER = "--force-new-cluster";

  private RecoverSteps() {}

  static void plan(RecoverRun run) {
    ProgressTracker progress = run.ctx.progress();
    progress.message("what is lost: " + run.loss());
    if (run.fromBackup()) return;
    progress.message(
        ("then: every kube-apiserver %s stopped; %s stopped and its data dir copied; %s;"
                + " rebuilt one at a time %s: %s; the inventory and every apiserver's"
                + " --etcd-servers follow, the apiservers brought back one by one")
            .formatted(
                run.controlPlane,
                run.survivor.name(),
                RecoverRevision.planned(run),
                run.learner ? "as learners, each promoted" : "as voting members",
                run.rebuildAs.entrySet().stream()
                    .map(
                        e ->
                            "%s as %s on %s (%s)"
                                .formatted(
                                    e.getKey(),
                                    e.getValue().name(),
                                    e.getValue().host(),
                                    e.getValue().peerUrl()))
                    .toList()));
    // steps, not the message: the approval's message replaces it, and each member's fence stays
    if (run.fencing)
      RecoverFencing.plan(run).forEach(line -> progress.run("plan: fence " + line, () -> {}));
  }

  static void awaitApproval(RecoverRun run) {
    String first =
        run.fromBackup()
            ? "the backup " + run.backup.id() + " is restored"
            : (run.fencing ? "the lost members are fenced, " : "")
                + "the kube-apiservers and "
                + run.survivor.name()
                + " are stopped";
    run.ctx.approval().awaitApproval(first, () -> false);
    RecoverDiscovery.lookAgain(run);
  }

  static void restoreFromBackup(RecoverRun run) {
    RestoreClusterWorkflow child =
        Workflow.newChildWorkflowStub(
            RestoreClusterWorkflow.class,
            RunbookSearchAttributes.inherited(
                    ChildWorkflowOptions.newBuilder(), RestoreClusterWorkflow.TYPE, run.cluster())
                .setWorkflowId(RecoverQuorumWorkflow.workflowId(run.cluster()) + "-restore")
                .build());
    RestoreRequest restore =
        RestoreRequest.of(
                run.cluster(),
                run.backup.id(),
                RunbookOptions.defaults()
                    .withMemberTimeoutSeconds(run.request.effectiveMemberTimeoutSeconds())
                    .withApiServerTimeoutSeconds(run.request.effectiveApiServerTimeoutSeconds()))
            .acknowledgingDataLoss();
    RestoreResult restored;
    try {
      restored =
          run.ctx
              .progress()
              .record("restore the backup " + run.backup.id(), () -> child.restore(restore));
    } catch (ChildWorkflowFailure e) {
      throw FailureType.RecoverFailed.nonRetryable(
          "%s from the backup %s failed: %s"
              .formatted(run.what(), run.backup.id(), Failures.rootMessage(e)));
    }
    run.apiServersRestarted.addAll(restored.apiServersRestarted());
    run.members = run.ctx.activities().membership.listMembers(run.ctx.ref());
  }

  static void stopApiServers(RecoverRun run) {
    run.ctx
        .progress()
        .stopIfCancelled("the kube-apiservers and " + run.survivor.name() + " are stopped");
    ApiServersOffline.stop(
        run.ctx,
        run.controlPlane,
        run.request.effectiveApiServerTimeoutSeconds(),
        run.apiServersStopped);
  }

  static void copySurvivor(RecoverRun run) {
    Activities activities = run.ctx.activities();
    String survivor = run.survivor.name();
    MemberRef ref = new MemberRef(run.cluster(), survivor);
    run.ctx.progress().member(survivor);
    run.ctx.progress().run(survivor + ": stop", () -> activities.host.stopMember(ref));
    run.dataDirCopy =
        run.ctx
            .progress()
            .record(
                survivor + ": copy the data dir, checked file by file",
                () ->
                    activities.recovery.copyDataDir(
                        new RecoveryMemberRequest(run.cluster(), survivor, run.recoveryId())));
  }

  static void forceNewCluster(RecoverRun run) {
    Activities activities = run.ctx.activities();
    ProgressTracker progress = run.ctx.progress();
    String survivor = run.survivor.name();
    MemberRef ref = new MemberRef(run.cluster(), survivor);
    AwaitMemberRequest ready =
        new AwaitMemberRequest(
            run.cluster(), survivor, run.version, run.request.effectiveMemberTimeoutSeconds());
    progress.run(
        survivor + ": set " + FORCE_NEW_CLUSTER,
        () ->
            activities.host.setMemberFlags(
                new SetMemberFlagsRequest(
                    run.cluster(),
                    survivor,
                    Map.of(FORCE_NEW_CLUSTER, "true"),
                    run.recoveryId(),
                    true)));
    RestoreMemberFlagsRequest flagsBack =
        new RestoreMemberFlagsRequest(run.cluster(), survivor, run.recoveryId());
    try {
      progress.run(
          survivor + ": start as a cluster of one", () -> activities.host.startMember(ref));
      progress.run(
          survivor + ": leads a cluster of one", () -> activities.etcdWait.awaitMemberReady(ready));
    } catch (ActivityFailure e) {
      // never leave the flag behind: at its next start the survivor would drop its members again
      putFlagsBack(run, flagsBack);
      throw e;
    }
    run.forcedNewCluster = true;
    progress.run(
        survivor + ": flags back as they were",
        () -> activities.host.restoreMemberFlags(flagsBack));
    progress.run(survivor + ": stop", () -> activities.host.stopMember(ref));
    progress.run(
        survivor + ": start without " + FORCE_NEW_CLUSTER, () -> activities.host.startMember(ref));
    progress.run(survivor + ": healthy", () -> activities.etcdWait.awaitMemberReady(ready));
    // the survivor may have applied a few more entries after the plan read its revision: what it
    // holds now, alone, is what the cluster keeps
    long kept =
        progress.record(
            survivor + ": revision kept", () -> activities.recovery.memberRevision(ref));
    if (kept != run.survivorRevision) {
      progress.message(
          "%s holds revision %d, not %d as planned: it applied what it had received meanwhile"
              .formatted(survivor, kept, run.survivorRevision));
      run.survivorRevision = kept;
    }
    progress.member("");
  }

  private static void putFlagsBack(RecoverRun run, RestoreMemberFlagsRequest flagsBack) {
    String survivor = run.survivor.name();
    try {
      run.ctx
          .progress()
          .run(
              survivor + ": flags back as they were (" + FORCE_NEW_CLUSTER + " removed)",
              () -> run.ctx.activities().host.restoreMemberFlags(flagsBack));
    } catch (ActivityFailure e) {
      run.ctx
          .progress()
          .message(
              ("%s still has %s where its flags live, and putting them back failed (%s): remove"
                      + " it by hand before %s starts again")
                  .formatted(survivor, FORCE_NEW_CLUSTER, Failures.rootMessage(e), survivor));
    }
  }

  static void rebuild(RecoverRun run) {
    ProgressTracker progress = run.ctx.progress();
    for (Map.Entry<String, MemberPlacement> e : run.rebuildAs.entrySet()) {
      String lost = e.getKey();
      MemberPlacement member = e.getValue();
      progress.stopIfCancelled(lost + " is rebuilt as " + member.name());
      progress.member(member.name());
      MemberJoin.Joining joining =
          new MemberJoin.Joining(
              member, run.version, run.learner, run.request.effectiveMemberTimeoutSeconds());
      new MemberJoin(run.ctx, joining).run();
      progress.run(
          "record %s in place of %s in the inventory".formatted(member.name(), lost),
          () ->
              run.ctx
                  .activities()
                  .inventory
                  .recordReplacement(new RecordReplacementRequest(run.cluster(), lost, member)));
      run.rebuilt.put(lost, member.name());
    }
    progress.member("");
    if (run.apiServersEarly) pointApiServersAtMembers(run);
  }

  /** Each apiserver's stopped manifest set to the inventory's members, then brought back. */
  static void bringApiServersBack(RecoverRun run) {
    bringApiServersBack(
        run,
        run.ctx.activities().inventory.members(run.ctx.ref()).stream()
            .map(MemberPlacement::clientUrl)
            .toList());
  }

  /**
   * As soon as the survivor serves alone: each apiserver's stopped manifest set to the survivor,
   * then brought back; the lost members rejoin behind it.
   */
  static void bringApiServersBackOnSurvivor(RecoverRun run) {
    bringApiServersBack(run, List.of(run.survivor.clientUrl()));
  }

  /**
   * After JOIN, with the apiservers running on the survivor: each one's --etcd-servers set to the
   * inventory's members, one host at a time, healthy before the next.
   */
  static void pointApiServersAtMembers(RecoverRun run) {
    if (run.apiServersRestarted.isEmpty()) return;
    Activities activities = run.ctx.activities();
    List<String> servers =
        activities.inventory.members(run.ctx.ref()).stream()
            .map(MemberPlacement::clientUrl)
            .toList();
    new ApiServerRollout(run.ctx, run.request.effectiveApiServerTimeoutSeconds())
        .run(
            List.copyOf(run.apiServersRestarted),
            new ApiServerRollout.Edit(
                "--etcd-servers=" + String.join(",", servers),
                host ->
                    activities.apiServer.setEtcdServers(
                        new SetEtcdServersRequest(run.cluster(), host, servers))));
  }

  /** A lost member's rebuild that did not join, once the runner removed it again. */
  static ApplicationFailure joinFailed(
      RecoverRun run, MemberPlacement member, MemberJoin.Failed failed) {
    String lost =
        run.rebuildAs.entrySet().stream()
            .filter(e -> e.getValue().name().equals(member.name()))
            .map(Map.Entry::getKey)
            .findFirst()
            .orElseThrow();
    return FailureType.RecoverFailed.nonRetryable(
        ("%s failed: %s, rebuilding %s on %s, could not join: %s%s%s %s %s Next: fix"
                + " %s, then replace %s and every lost member after it with"
                + " ReplaceMember, one at a time")
            .formatted(
                run.what(),
                member.name(),
                lost,
                member.host(),
                failed.why(),
                failed.logTail(),
                failed.undone(),
                RecoverFailure.state(run),
                failed.clusterState(),
                member.host(),
                lost));
  }

  /** A kube-apiserver that did not come back healthy on every member, its manifest put back. */
  static ApplicationFailure apiServerFailed(RecoverRun run, ApiServerRollout.Unhealthy unhealthy) {
    ApiServerRollout.Stopped stopped = unhealthy.stopped();
    return FailureType.RecoverFailed.nonRetryable(
        ("%s: every member is rebuilt (%s), but the kube-apiserver on %s did not become"
                + " healthy once its --etcd-servers listed them all: %s.%s Apiservers on"
                + " every member: %s; still on %s alone: %s. Next: read that"
                + " apiserver's log, fix it, and set %s by hand on the"
                + " others")
            .formatted(
                run.what(),
                run.rebuilt,
                stopped.host(),
                stopped.cause(),
                stopped.putBack().isEmpty() ? "" : " " + stopped.putBack(),
                stopped.done(),
                run.survivor.name(),
                stopped.notYet(),
                unhealthy.edit().what()));
  }

  private static void bringApiServersBack(RecoverRun run, List<String> servers) {
    Activities activities = run.ctx.activities();
    ApiServersOffline.bringBack(
        run.ctx,
        run.controlPlane,
        run.request.effectiveApiServerTimeoutSeconds(),
        host ->
            run.ctx
                .progress()
                .run(
                    host + ": --etcd-servers=" + String.join(",", servers),
                    () ->
                        activities.apiServer.setEtcdServers(
                            new SetEtcdServersRequest(run.cluster(), host, servers))),
        run.apiServersStopped,
        run.apiServersRestarted);
  }

  static void postflight(RecoverRun run) {
    PostflightCheck.Found found =
        PostflightCheck.checkThenCompare(
            run.ctx,
            PostflightCheck.membersAsInventory(run.ctx, 0, members -> run.members = members));
    if (!found.problems().isEmpty()) throw PostflightCheck.failed(run.what(), found.problems());
  }

  static void done(RecoverRun run) {
    if (!run.changes()) return;
    KubeadmConfigSync.followInventoryMembers(
            run.ctx,
            "%s: the cluster serves again, its members recorded in the inventory"
                .formatted(run.what()))
        .ifPresent(run.kubeadmConfig::add);
    run.ctx
        .progress()
        .message(
            run.fromBackup()
                ? "restored from the backup " + run.backup.id()
                : "quorum recovered from %s; rebuilt %s; %s"
                    .formatted(run.survivor.name(), run.rebuilt, run.loss()));
  }
}
