package io.etcdrunbooks.workflows.scale;

import io.etcdrunbooks.workflows.activities.ApiServerActivities.SetEtcdServersRequest;
import io.etcdrunbooks.workflows.activities.EtcdActivities.MoveLeaderRequest;
import io.etcdrunbooks.workflows.activities.InventoryActivities.RecordAdditionRequest;
import io.etcdrunbooks.workflows.activities.InventoryActivities.RecordRemovalRequest;
import io.etcdrunbooks.workflows.activities.MembershipActivities.RemoveMemberRequest;
import io.etcdrunbooks.workflows.activities.NewMemberActivities.NewMemberRequest;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.ProgressTracker;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.model.MemberStatus;
import io.etcdrunbooks.workflows.phases.Activities;
import io.etcdrunbooks.workflows.phases.ApiServerRollout;
import io.etcdrunbooks.workflows.phases.ClusterChecks;
import io.etcdrunbooks.workflows.phases.ClusterDescription;
import io.etcdrunbooks.workflows.phases.MemberJoin;
import io.etcdrunbooks.workflows.phases.PostflightCheck;
import io.etcdrunbooks.workflows.phases.Refusal;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import java.util.List;

/**
 * The phases of a scaling that change the cluster: JOIN, APISERVERS, REMOVE, one member or host at
 * a time, each step guarded by the cluster as it is just before it, and POSTFLIGHT.
 */
final class ScaleSteps {

  private ScaleSteps() {}

  static void join(ScaleRun run) {
    ProgressTracker progress = run.ctx.progress();
    for (MemberPlacement m : run.plan.add()) {
      progress.stopIfCancelled(m.name() + " is added");
      progress.member(m.name());
      List<String> problems = ClusterChecks.memberProblems(discover(run), "adding " + m.name());
      if (!problems.isEmpty()) throw stoppedBefore(run, "adding " + m.name(), problems);
      MemberJoin.Joining joining =
          new MemberJoin.Joining(
              m, run.version, run.learner, run.request.effectiveMemberTimeoutSeconds());
      new MemberJoin(run.ctx, joining).run();
      progress.run(
          "record %s in the inventory".formatted(m.name()),
          () ->
              run.ctx
                  .activities()
                  .inventory
                  .recordAddition(new RecordAdditionRequest(run.cluster(), m)));
      run.added.add(m.name());
    }
    progress.member("");
  }

  static void apiServers(ScaleRun run) {
    List<String> urls = run.targetClientUrls();
    ApiServerRollout.Edit edit =
        new ApiServerRollout.Edit(
            "--etcd-servers=" + String.join(",", urls),
            host ->
                run.ctx
                    .activities()
                    .apiServer
                    .setEtcdServers(new SetEtcdServersRequest(run.cluster(), host, urls)));
    run.apiServersUpdated =
        new ApiServerRollout(run.ctx, run.request.effectiveApiServerTimeoutSeconds()).run(edit);
  }

  static void remove(ScaleRun run) {
    ProgressTracker progress = run.ctx.progress();
    Activities activities = run.ctx.activities();
    for (MemberPlacement m : run.plan.remove()) {
      progress.stopIfCancelled(m.name() + " is removed");
      progress.member(m.name());
      ClusterState state = discover(run);
      ScalePlanning.whyUnsafeToRemove(state, m.name())
          .ifPresent(
              why -> {
                throw stoppedBefore(run, "removing " + m.name(), List.of(why));
              });
      handLeadershipOn(run, state, m.name());
      progress.record(
          "remove %s from the etcd membership".formatted(m.name()),
          () ->
              activities.membership.removeMember(
                  new RemoveMemberRequest(run.cluster(), m.peerUrl())));
      progress.run(
          "remove %s from the inventory".formatted(m.name()),
          () ->
              activities.inventory.recordRemoval(
                  new RecordRemovalRequest(run.cluster(), m.name())));
      run.removed.add(m.name());
      try {
        progress.run(
            "%s: stop etcd on %s and keep its data dir aside".formatted(m.name(), m.host()),
            () ->
                activities.newMember.discard(new NewMemberRequest(run.cluster(), m, run.version)));
      } catch (ActivityFailure e) {
        progress.message(
            ("%s is out of the cluster, but its etcd on %s could not be stopped (%s): stop it and"
                    + " disable its service by hand, so it does not start again")
                .formatted(m.name(), m.host(), Failures.rootMessage(e)));
      }
    }
    progress.member("");
  }

  static void postflight(ScaleRun run) {
    PostflightCheck.Found found =
        PostflightCheck.checkThenCompare(
            run.ctx,
            PostflightCheck.membersAsInventory(
                run.ctx, run.request.targetSize(), members -> run.members = members));
    if (!found.problems().isEmpty()) throw PostflightCheck.failed(run.what(), found.problems());
  }

  /** A leader about to be removed hands leadership to a healthy voting member that stays. */
  private static void handLeadershipOn(ScaleRun run, ClusterState state, String member) {
    if (!member.equals(state.leaderName())) return;
    List<String> leaving = ScaleRun.placementNames(run.plan.remove());
    String to =
        state.members().stream()
            .filter(s -> !s.learner() && s.healthy() && !leaving.contains(s.name()))
            .map(MemberStatus::name)
            .findFirst()
            .orElseThrow(
                () ->
                    stoppedBefore(
                        run,
                        "removing " + member,
                        List.of("no healthy voting member that stays to hand leadership to")));
    run.ctx
        .progress()
        .run(
            member + ": hand leadership to " + to,
            () -> run.ctx.activities().etcd.moveLeader(new MoveLeaderRequest(run.cluster(), to)));
  }

  private static ClusterState discover(ScaleRun run) {
    return run.ctx
        .progress()
        .record("discover", () -> run.ctx.activities().etcd.discover(run.ctx.ref()));
  }

  /**
   * The cluster is not fit for the next step: a refusal while nothing has changed yet, else a
   * failure naming what was done.
   */
  private static ApplicationFailure stoppedBefore(ScaleRun run, String step, List<String> why) {
    if (run.added.isEmpty() && run.removed.isEmpty() && run.apiServersUpdated.isEmpty())
      return Refusal.of(run.what(), why, FailureType.ScaleRefused);
    return FailureType.ScaleFailed.nonRetryable(
        ("%s stopped before %s:\n  - %s\n%s %s Next: mend that, then start ScaleCluster again with"
                + " the same request: it goes on from here")
            .formatted(
                run.what(),
                step,
                String.join("\n  - ", why),
                doneSoFar(run),
                ClusterDescription.describe(run.ctx.activities(), run.cluster())));
  }

  static ApplicationFailure joinFailed(ScaleRun run, MemberPlacement m, MemberJoin.Failed failed) {
    return FailureType.ScaleFailed.nonRetryable(
        ("%s failed: the new member %s (%s on %s) could not join: %s%s%s %s %s Next: fix %s (see"
                + " the log above), then start ScaleCluster again with the same request: members"
                + " already added are kept")
            .formatted(
                run.what(),
                m.name(),
                m.peerUrl(),
                m.host(),
                failed.why(),
                failed.logTail(),
                failed.undone(),
                doneSoFar(run),
                failed.clusterState(),
                m.host()));
  }

  static ApplicationFailure apiServerFailed(ScaleRun run, ApiServerRollout.Stopped stopped) {
    String putBack = stopped.putBack().isEmpty() ? "" : " " + stopped.putBack();
    return FailureType.ApiServerUpdateFailed.nonRetryable(
        ("%s: the kube-apiserver on %s did not become healthy%s: %s.%s %s Apiservers already on"
                + " the new set: %s; not yet: %s. No member was removed. Next: read that"
                + " apiserver's log, fix it, then start ScaleCluster again with the same request")
            .formatted(
                run.what(),
                stopped.host(),
                stopped.changed() ? " after its --etcd-servers changed" : "",
                stopped.cause(),
                putBack,
                doneSoFar(run),
                stopped.done(),
                stopped.notYet()));
  }

  private static String doneSoFar(ScaleRun run) {
    if (run.added.isEmpty() && run.removed.isEmpty()) return "No member was added or removed.";
    return "Kept, each recorded in the inventory: added %s, removed %s."
        .formatted(run.added, run.removed);
  }
}
