package io.etcdrunbooks.workflows.phases;

import io.etcdrunbooks.workflows.activities.MembershipActivities.AddMemberRequest;
import io.etcdrunbooks.workflows.activities.MembershipActivities.AwaitNewMemberRequest;
import io.etcdrunbooks.workflows.activities.MembershipActivities.PromoteMemberRequest;
import io.etcdrunbooks.workflows.activities.MembershipActivities.RemoveMemberRequest;
import io.etcdrunbooks.workflows.activities.NewMemberActivities.NewMemberRequest;
import io.etcdrunbooks.workflows.activities.NewMemberActivities.PrepareRequest;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.ProgressTracker;
import io.etcdrunbooks.workflows.model.EtcdMember;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import java.util.ArrayList;
import java.util.List;

/**
 * One new member joining a running cluster, as the runbooks that add members do it (ReplaceMember,
 * ScaleCluster): added to etcd's membership (a learner on 3.4 and later), its host prepared to join
 * the existing cluster, started, caught up with the leader, and a learner promoted. Its way back is
 * registered before the add: when a step fails, the new member is removed from the membership again
 * and its etcd stopped with its data dir kept aside (COMPENSATE), each undo tried even when the
 * other failed, and the runbook's own failure is made from what happened.
 */
public final class MemberJoin {

  /**
   * The member that joins.
   *
   * @param version the etcd version it runs (the cluster's)
   * @param learner joins as a learner and is promoted (etcd 3.4 and later)
   * @param timeoutSeconds how long it may take to start and catch up
   */
  public record Joining(
      MemberPlacement member, String version, boolean learner, int timeoutSeconds) {}

  /**
   * What went wrong, for the runbook's failure.
   *
   * @param why the root cause
   * @param logTail ". Last log lines of m4:\n..." or "" when there were none
   * @param undone what became of the undo, as a sentence starting with ". "
   * @param clusterState the cluster as it was looked at after the undo
   */
  public record Failed(String why, String logTail, String undone, String clusterState) {}

  /** Makes the runbook's failure from a join that was undone. */
  public interface FailureMaker {
    ApplicationFailure failure(Failed failed);
  }

  private final RunContext ctx;
  private final Joining joining;
  private final NewMemberRequest onHost;
  private final List<String> notUndone = new ArrayList<>();

  public MemberJoin(RunContext ctx, Joining joining) {
    this.ctx = ctx;
    this.joining = joining;
    this.onHost = new NewMemberRequest(ctx.cluster(), joining.member(), joining.version());
  }

  /** Joins the member; on failure undoes the join and throws the runbook's failure. */
  public EtcdMember run(FailureMaker failureMaker) {
    ctx.progress().awaitResumed();
    Compensation compensation = new Compensation();
    String name = joining.member().name();
    // both before the add, the stop first so that it runs last: the new member leaves the
    // membership before it stops
    compensation.register(
        "stop " + name + " and keep its data dir aside", this::stopAndKeepDataDirAside);
    compensation.register(
        "remove " + name + " from the etcd membership", this::removeFromMembership);
    EtcdMember added;
    try {
      added = addAndPrepareHost();
      startAndCatchUp();
    } catch (ActivityFailure | ApplicationFailure e) {
      throw undo(e, compensation, failureMaker);
    }
    compensation.commit();
    return added;
  }

  private ApplicationFailure undo(
      RuntimeException cause, Compensation compensation, FailureMaker failureMaker) {
    String why = Failures.rootMessage(cause);
    String log = logTail();
    ctx.progress().phase(Phase.COMPENSATE);
    ctx.progress()
        .message(joining.member().name() + " could not join: " + why + "; removing it again");
    compensation.undo();
    String state = ClusterDescription.describe(ctx.activities(), ctx.cluster());
    return failureMaker.failure(new Failed(why, log, undoneSentence(), state));
  }

  /** The new member in etcd's membership, and its host ready to start it with a fresh data dir. */
  private EtcdMember addAndPrepareHost() {
    Activities activities = ctx.activities();
    ProgressTracker progress = ctx.progress();
    MemberPlacement member = joining.member();
    String name = member.name();
    EtcdMember added =
        progress.record(
            "add " + name + " " + (joining.learner() ? "as a learner" : "as a voting member"),
            () ->
                activities.membership.addMember(
                    new AddMemberRequest(ctx.cluster(), member.peerUrl(), joining.learner())));
    String initialCluster =
        progress.record(
            "initial cluster for " + name,
            () -> initialCluster(activities.membership.listMembers(ctx.ref()), member));
    progress.run(
        "%s: prepare %s (etcd %s, fresh data dir, join existing cluster)"
            .formatted(name, member.host(), joining.version()),
        () ->
            activities.newMember.prepare(
                new PrepareRequest(ctx.cluster(), member, joining.version(), initialCluster)));
    return added;
  }

  /** Started, caught up with the leader, and (a learner) promoted and healthy as a voter. */
  private void startAndCatchUp() {
    Activities activities = ctx.activities();
    ProgressTracker progress = ctx.progress();
    MemberPlacement member = joining.member();
    String name = member.name();
    progress.run(name + ": start", () -> activities.newMember.start(onHost));
    AwaitNewMemberRequest ready =
        new AwaitNewMemberRequest(
            ctx.cluster(), member, joining.version(), joining.timeoutSeconds());
    progress.run(
        name + ": caught up with the leader",
        () -> activities.membershipWait.awaitNewMemberReady(ready));
    if (joining.learner()) {
      progress.run(
          name + ": promote to voting member",
          () ->
              activities.membershipWait.promoteMember(
                  new PromoteMemberRequest(
                      ctx.cluster(), member.peerUrl(), joining.timeoutSeconds())));
      progress.run(
          name + ": healthy as a voting member",
          () -> activities.membershipWait.awaitNewMemberReady(ready));
    }
  }

  /**
   * etcd's initial-cluster for the new member: every member's name=peerURL, the new member (not
   * started yet) by its name.
   */
  public static String initialCluster(List<EtcdMember> members, MemberPlacement joining) {
    List<String> entries = new ArrayList<>();
    for (EtcdMember m : members) {
      String name = m.hasPeerUrl(joining.peerUrl()) ? joining.name() : m.name();
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

  private String undoneSentence() {
    return notUndone.isEmpty()
        ? ". It was removed from the membership again and its etcd stopped; its data dir is kept"
            + " aside."
        : ". Undoing it was not complete: " + String.join("; ", notUndone) + ".";
  }

  private boolean removeFromMembership() {
    MemberPlacement member = joining.member();
    try {
      ctx.progress()
          .run(
              "compensate: remove " + member.name() + " from the etcd membership",
              () ->
                  ctx.activities()
                      .membership
                      .removeMember(new RemoveMemberRequest(ctx.cluster(), member.peerUrl())));
      return true;
    } catch (ActivityFailure e) {
      notUndone.add(
          ("removing it again failed (%s): remove the member with peer URL %s by hand (etcdctl"
                  + " member list, then etcdctl member remove <id>)")
              .formatted(Failures.rootMessage(e), member.peerUrl()));
      return false;
    }
  }

  private boolean stopAndKeepDataDirAside() {
    MemberPlacement member = joining.member();
    try {
      ctx.progress()
          .run(
              "compensate: stop " + member.name() + " and keep its data dir aside",
              () -> ctx.activities().newMember.discard(onHost));
      return true;
    } catch (ActivityFailure e) {
      notUndone.add(
          "stopping it on %s failed (%s): stop it by hand"
              .formatted(member.host(), Failures.rootMessage(e)));
      return false;
    }
  }

  /** ". Last log lines of m4:\n..." for the failure, read before the member is stopped. */
  private String logTail() {
    try {
      String tail = ctx.activities().newMember.logTail(onHost).strip();
      return tail.isEmpty()
          ? ""
          : ". Last log lines of " + joining.member().name() + ":\n" + tail + "\n";
    } catch (ActivityFailure e) {
      return " (its log is unreadable: " + Failures.rootMessage(e) + ")";
    }
  }
}
