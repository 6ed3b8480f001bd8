package io.etcdrunbooks.workflows.replacemember;

import io.etcdrunbooks.workflows.activities.MembershipActivities.AddMemberRequest;
import io.etcdrunbooks.workflows.activities.MembershipActivities.AwaitNewMemberRequest;
import io.etcdrunbooks.workflows.activities.MembershipActivities.PromoteMemberRequest;
import io.etcdrunbooks.workflows.activities.NewMemberActivities.NewMemberRequest;
import io.etcdrunbooks.workflows.activities.NewMemberActivities.PrepareRequest;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.ProgressTracker;
import io.etcdrunbooks.workflows.model.EtcdMember;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.phases.Activities;
import io.etcdrunbooks.workflows.phases.Compensation;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import java.util.ArrayList;
import java.util.List;

/**
 * The JOIN phase: the new member is added (a learner on 3.4 and later), its host prepared to join
 * the existing cluster, it is started and caught up, and a learner is promoted. Its way back is
 * registered before the add; when any step fails, the new member is removed again and stopped
 * ({@link JoinCompensation}) and the runbook fails.
 */
final class ReplacementJoin {

  private ReplacementJoin() {}

  static void run(ReplaceRun run) {
    run.ctx.progress().awaitResumed();
    JoinCompensation undo = new JoinCompensation(run);
    Compensation compensation = new Compensation();
    String name = run.replacement().name();
    // both before the add, the stop first so that it runs last: the new member leaves the
    // membership before it stops
    compensation.register(
        "stop " + name + " and keep its data dir aside", undo::stopAndKeepDataDirAside);
    compensation.register(
        "remove " + name + " from the etcd membership", undo::removeFromMembership);
    try {
      run.added = join(run);
    } catch (ActivityFailure | ApplicationFailure e) {
      throw undo.failWith(e, compensation);
    }
    compensation.commit();
  }

  private static EtcdMember join(ReplaceRun run) {
    EtcdMember added = addAndPrepareHost(run);
    startAndCatchUp(run);
    return added;
  }

  /** The new member in etcd's membership, and its host ready to start it with a fresh data dir. */
  private static EtcdMember addAndPrepareHost(ReplaceRun run) {
    Activities activities = run.ctx.activities();
    ProgressTracker progress = run.ctx.progress();
    MemberPlacement replacement = run.replacement();
    String cluster = run.cluster();
    String name = replacement.name();
    EtcdMember added =
        progress.record(
            "add " + name + " " + (run.learner ? "as a learner" : "as a voting member"),
            () ->
                activities.membership.addMember(
                    new AddMemberRequest(cluster, replacement.peerUrl(), run.learner)));
    String initialCluster =
        progress.record(
            "initial cluster for " + name,
            () -> initialCluster(activities.membership.listMembers(run.ctx.ref()), replacement));
    progress.run(
        "%s: prepare %s (etcd %s, fresh data dir, join existing cluster)"
            .formatted(name, replacement.host(), run.version),
        () ->
            activities.newMember.prepare(
                new PrepareRequest(cluster, replacement, run.version, initialCluster)));
    return added;
  }

  /** Started, caught up with the leader, and (a learner) promoted and healthy as a voter. */
  private static void startAndCatchUp(ReplaceRun run) {
    Activities activities = run.ctx.activities();
    ProgressTracker progress = run.ctx.progress();
    MemberPlacement replacement = run.replacement();
    String cluster = run.cluster();
    String name = replacement.name();
    int timeout = run.request.effectiveMemberTimeoutSeconds();
    progress.run(
        name + ": start",
        () -> activities.newMember.start(new NewMemberRequest(cluster, replacement, run.version)));
    AwaitNewMemberRequest ready =
        new AwaitNewMemberRequest(cluster, replacement, run.version, timeout);
    progress.run(
        name + ": caught up with the leader",
        () -> activities.membershipWait.awaitNewMemberReady(ready));
    if (run.learner) {
      progress.run(
          name + ": promote to voting member",
          () ->
              activities.membershipWait.promoteMember(
                  new PromoteMemberRequest(cluster, replacement.peerUrl(), timeout)));
      progress.run(
          name + ": healthy as a voting member",
          () -> activities.membershipWait.awaitNewMemberReady(ready));
    }
  }

  /**
   * etcd's initial-cluster for the new member: every member's name=peerURL, the new member (not
   * started yet) by its name.
   */
  static String initialCluster(List<EtcdMember> members, MemberPlacement replacement) {
    List<String> entries = new ArrayList<>();
    for (EtcdMember m : members) {
      String name = m.hasPeerUrl(replacement.peerUrl()) ? replacement.name() : m.name();
      if (name.isEmpty()) {
        throw FailureType.ReplacementJoinFailed.nonRetryable(
            ("etcd member %s %s was added but never started, so the new member's initial cluster"
                    + " cannot name it; remove it (etcdctl member remove %s) and run again")
                .formatted(m.hexId(), m.peerUrls(), m.hexId()));
      }
      m.peerUrls().forEach(url -> entries.add(name + "=" + url));
    }
    return String.join(",", entries);
  }
}
