package io.etcdrunbooks.workflows.phases;

import io.etcdrunbooks.workflows.activities.MembershipActivities.AddMemberRequest;
import io.etcdrunbooks.workflows.activities.MembershipActivities.AwaitNewMemberRequest;
import io.etcdrunbooks.workflows.activities.MembershipActivities.PromoteMemberRequest;
import io.etcdrunbooks.workflows.activities.MembershipActivities.RemoveMemberRequest;
import io.etcdrunbooks.workflows.activities.NewMemberActivities.NewMemberRequest;
import io.etcdrunbooks.workflows.activities.NewMemberActivities.PrepareRequest;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
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
 * registered before the add: when a step fails, the phase runner removes the new member from the
 * membership again and stops its etcd with its data dir kept aside (COMPENSATE), each undo tried
 * even when the other failed, and the runbook's failure mapping words what happened ({@link
 * NotJoined}).
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

  /**
   * A join that failed ({@link PhaseFailed#what()}): its undos run with the run's, then the runbook
   * words its failure from {@link #afterUndo()}.
   */
  public static final class NotJoined {
    private final MemberJoin join;
    private final String why;
    private final String logTail;

    private NotJoined(MemberJoin join, String why, String logTail) {
      this.join = join;
      this.why = why;
      this.logTail = logTail;
    }

    public MemberPlacement member() {
      return join.joining.member();
    }

    /** What went wrong and became of the undo, with the cluster as it is now. */
    public Failed afterUndo() {
      String state = ClusterDescription.describe(join.ctx.activities(), join.ctx.cluster());
      return new Failed(why, logTail, join.undoneSentence(), state);
    }
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

  /**
   * Joins the member; on failure throws {@link PhaseFailed} with {@link NotJoined}, for the runner
   * to undo the join.
   */
  public EtcdMember run() {
    ctx.progress().awaitResumed();
    Compensation.Scope compensation = ctx.undos().scope();
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
      String why = Failures.rootMessage(e);
      String log = logTail(); // before the undo stops the member
      ctx.progress().message(name + " could not join: " + why + "; removing it again");
      throw ctx.undos().failed(e, new NotJoined(this, why, log));
    }
    compensation.commit();
    return added;
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
