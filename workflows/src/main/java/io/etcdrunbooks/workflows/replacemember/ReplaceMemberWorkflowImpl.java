package io.etcdrunbooks.workflows.replacemember;

import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.activities.ApiServerActivities.AwaitApiServerRequest;
import io.etcdrunbooks.workflows.activities.ApiServerActivities.ControlPlaneRef;
import io.etcdrunbooks.workflows.activities.ApiServerActivities.ReplaceEtcdServerRequest;
import io.etcdrunbooks.workflows.activities.EtcdActivities.MoveLeaderRequest;
import io.etcdrunbooks.workflows.activities.InventoryActivities.RecordReplacementRequest;
import io.etcdrunbooks.workflows.activities.MembershipActivities.AddMemberRequest;
import io.etcdrunbooks.workflows.activities.MembershipActivities.AwaitNewMemberRequest;
import io.etcdrunbooks.workflows.activities.MembershipActivities.PromoteMemberRequest;
import io.etcdrunbooks.workflows.activities.MembershipActivities.RemoveMemberRequest;
import io.etcdrunbooks.workflows.activities.NewMemberActivities.NewMemberRequest;
import io.etcdrunbooks.workflows.activities.NewMemberActivities.PrepareRequest;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.RunbookWorkflow;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.ConsistencyReport;
import io.etcdrunbooks.workflows.model.EtcdMember;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.model.MemberStatus;
import io.etcdrunbooks.workflows.model.Versions;
import io.etcdrunbooks.workflows.phases.Activities;
import io.etcdrunbooks.workflows.phases.HostAccessPreflight;
import io.etcdrunbooks.workflows.phases.ClusterChecks;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Workflow;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

public final class ReplaceMemberWorkflowImpl extends RunbookWorkflow implements ReplaceMemberWorkflow {

  private static final int QUORUM_LOOKS = 5;
  private static final java.time.Duration QUORUM_LOOK_INTERVAL = java.time.Duration.ofSeconds(3);

  private final Activities activities = new Activities();
  private boolean alertResolved;

  public ReplaceMemberWorkflowImpl() {
    super(TYPE);
  }

  @Override
  public ReplaceMemberResult replace(ReplaceMemberRequest request) {
    return runChange(request.cluster(), request.dryRun(), () -> run(request));
  }

  @Override
  public void alertResolved() {
    alertResolved = true;
    if (!approved()) progress.message("the alert resolved before approval");
  }

  private ReplaceMemberResult run(ReplaceMemberRequest request) {
    String cluster = request.cluster();
    List<String> inputProblems = ReplacementPreflight.inputProblems(request);
    if (!inputProblems.isEmpty()) throw refuse(cluster, request.failedMember(), inputProblems);
    if (request.trigger() != null && !request.trigger().isBlank()) progress.message("started by " + request.trigger());

    progress.phase(Phase.DISCOVER);
    Discovered found = discover(request);
    MemberPlacement failed = found.failed();
    MemberPlacement replacement = found.replacement();
    String version = ClusterChecks.runningVersion(found.state());

    progress.phase(Phase.PREFLIGHT);
    List<String> problems = new ArrayList<>(found.problems());
    try {
      progress.run("inventory writable", () -> activities.inventory.checkWritable(new ClusterRef(cluster)));
    } catch (ActivityFailure e) {
      problems.add(Failures.rootMessage(e));
    }
    // the failed member's host may be down: it is not required; the replacement's host is checked next
    problems.addAll(HostAccessPreflight.problems(activities, progress, cluster, List.of(failed.name()), true));
    if (problems.isEmpty()) {
      try {
        progress.run("host of " + replacement.name() + " (" + replacement.host() + ") usable for etcd " + version,
            () -> activities.newMember.checkHost(new NewMemberRequest(cluster, replacement, version)));
      } catch (ActivityFailure e) {
        problems.add(Failures.rootMessage(e));
      }
    }
    if (!problems.isEmpty()) throw refuse(cluster, failed.name(), problems);
    boolean learner = Versions.ORDER.compare(version, "3.4.0") >= 0;

    progress.phase(Phase.PLAN);
    progress.message("remove " + failed.name() + " (" + failed.peerUrl() + "), add " + replacement.name() + " on "
        + replacement.host() + " (" + replacement.peerUrl() + ") " + (learner ? "as a learner, then promote" : "as a voting member")
        + ", etcd " + version + "; then point the kube-apiservers at " + replacement.clientUrl() + " instead of " + failed.clientUrl());
    if (request.dryRun()) {
      progress.phase(Phase.DONE);
      return result(request, ReplaceMemberResult.DRY_RUN, "", replacement, "", learner, found.etcdMembers(), List.of(),
          List.of("dry run: nothing was touched"));
    }

    if (request.requireApproval()) {
      if (!awaitApproval(failed.name() + " is removed", () -> alertResolved)) {
        progress.phase(Phase.DONE);
        progress.message("cancelled: the alert resolved before approval; nothing was touched");
        return result(request, ReplaceMemberResult.CANCELLED, "", replacement, "", learner, found.etcdMembers(), List.of(),
            List.of("the alert resolved before approval; nothing was touched"));
      }
      // the cluster may have changed while the runbook waited: check it again before touching anything
      progress.phase(Phase.PREFLIGHT);
      List<String> now = discover(request).problems();
      if (!now.isEmpty()) throw refuse(cluster, failed.name(), now);
    }

    progress.stopIfCancelled(failed.name() + " is removed");
    progress.phase(Phase.REMOVE);
    moveLeadershipAwayFrom(cluster, failed.name());
    long removedId = progress.record("remove " + failed.name() + " from the etcd membership",
        () -> activities.membership.removeMember(new RemoveMemberRequest(cluster, failed.peerUrl())));
    if (removedId == 0) progress.message(failed.name() + " was no longer an etcd member");

    progress.phase(Phase.JOIN);
    progress.awaitResumed();
    EtcdMember added = join(request, failed, replacement, version, learner);

    progress.phase(Phase.INVENTORY);
    progress.run("record " + replacement.name() + " in place of " + failed.name() + " in the inventory",
        () -> activities.inventory.recordReplacement(new RecordReplacementRequest(cluster, failed.name(), replacement)));

    progress.phase(Phase.APISERVERS);
    List<String> updated = updateApiServers(request, failed, replacement);

    progress.phase(Phase.POSTFLIGHT);
    List<EtcdMember> members = postflight(cluster);
    progress.phase(Phase.DONE);
    progress.message(replacement.name() + " replaced " + failed.name() + "; members " + names(members, replacement));
    return result(request, ReplaceMemberResult.REPLACED, removedId == 0 ? "" : Long.toHexString(removedId), replacement,
        added.hexId(), learner, members, updated, List.of());
  }

  private record Discovered(ClusterState state, List<EtcdMember> etcdMembers, MemberPlacement failed,
      MemberPlacement replacement, List<String> problems) {}

  /** Reads the cluster, etcd's member list and the inventory, and works out the replacement and what forbids it. */
  private Discovered discover(ReplaceMemberRequest request) {
    String cluster = request.cluster();
    ClusterRef ref = new ClusterRef(cluster);
    List<MemberPlacement> inventoryMembers;
    try {
      inventoryMembers = activities.inventory.members(ref);
    } catch (ActivityFailure e) {
      if (FailureType.UnknownCluster.name().equals(Failures.rootType(e))) throw refuse(cluster, request.failedMember(), List.of(Failures.rootMessage(e)));
      throw e;
    }
    MemberPlacement failed = inventoryMembers.stream().filter(m -> m.name().equals(request.failedMember())).findFirst()
        .orElseThrow(() -> refuse(cluster, request.failedMember(), List.of("the inventory has no member '" + request.failedMember()
            + "' (members: " + inventoryMembers.stream().map(MemberPlacement::name).toList() + "); check the name. If it was"
            + " replaced already there is nothing left to do")));
    ClusterState state;
    List<EtcdMember> etcdMembers;
    int look = 1;
    while (true) {
      state = progress.record("discover", () -> activities.etcd.discover(ref));
      etcdMembers = listMembersIfAnswered(ref);
      // a member that just died may have led: give the election a few seconds before judging quorum
      if (ReplacementPreflight.quorumProblem(state, etcdMembers, failed).isEmpty() || look == QUORUM_LOOKS
          || !ReplacementPreflight.electionMayHelp(state, etcdMembers, failed)) {
        break;
      }
      look++;
      progress.message("no quorum seen yet without " + failed.name() + "; looking again (" + look + "/" + QUORUM_LOOKS + ")");
      Workflow.sleep(QUORUM_LOOK_INTERVAL);
    }
    Set<String> taken = new HashSet<>();
    inventoryMembers.forEach(m -> taken.add(m.name()));
    etcdMembers.forEach(m -> taken.add(m.name()));
    String name = request.replacement() != null ? request.replacement().name() : ReplacementPreflight.nameOnSameHost(failed.name(), taken);
    MemberPlacement replacement = ReplacementPreflight.complete(failed, request.replacement(), name);
    List<String> problems = new ArrayList<>(ReplacementPreflight.clusterProblems(state, etcdMembers, failed, replacement, request.force()));
    problems.addAll(ReplacementPreflight.urlClashes(inventoryMembers, failed, replacement));
    return new Discovered(state, etcdMembers, failed, replacement, problems);
  }

  private List<EtcdMember> listMembersIfAnswered(ClusterRef ref) {
    try {
      return progress.record("etcd member list", () -> activities.membership.listMembers(ref));
    } catch (ActivityFailure e) {
      return List.of();
    }
  }

  /** A forced replacement of the leader hands leadership to a healthy voter first, so writes pause only briefly. */
  private void moveLeadershipAwayFrom(String cluster, String member) {
    ClusterState state = activities.etcd.discover(new ClusterRef(cluster));
    if (!member.equals(state.leaderName())) return;
    String to = state.members().stream().filter(m -> !m.name().equals(member) && m.healthy() && !m.learner())
        .map(MemberStatus::name).findFirst().orElseThrow(() -> refuse(cluster, member, List.of("no healthy voting member"
            + " to hand leadership to")));
    progress.run(member + ": hand leadership to " + to, () -> activities.etcd.moveLeader(new MoveLeaderRequest(cluster, to)));
  }

  /**
   * Adds the new member, prepares and starts it, waits until it is caught up and (learner path) promotes it. When any
   * of it fails, the new member is removed again and its etcd stopped, and the runbook fails naming the cause.
   */
  private EtcdMember join(ReplaceMemberRequest request, MemberPlacement failed, MemberPlacement replacement, String version,
      boolean learner) {
    String cluster = request.cluster();
    String name = replacement.name();
    NewMemberRequest onHost = new NewMemberRequest(cluster, replacement, version);
    int timeout = request.effectiveMemberTimeoutSeconds();
    try {
      EtcdMember added = progress.record("add " + name + " " + (learner ? "as a learner" : "as a voting member"),
          () -> activities.membership.addMember(new AddMemberRequest(cluster, replacement.peerUrl(), learner)));
      String initialCluster = progress.record("initial cluster for " + name,
          () -> initialCluster(activities.membership.listMembers(new ClusterRef(cluster)), replacement));
      progress.run(name + ": prepare " + replacement.host() + " (etcd " + version + ", fresh data dir, join existing cluster)",
          () -> activities.newMember.prepare(new PrepareRequest(cluster, replacement, version, initialCluster)));
      progress.run(name + ": start", () -> activities.newMember.start(onHost));
      AwaitNewMemberRequest ready = new AwaitNewMemberRequest(cluster, replacement, version, timeout);
      progress.run(name + ": caught up with the leader", () -> activities.membershipWait.awaitNewMemberReady(ready));
      if (learner) {
        progress.run(name + ": promote to voting member", () -> activities.membershipWait.promoteMember(
            new PromoteMemberRequest(cluster, replacement.peerUrl(), timeout)));
        progress.run(name + ": healthy as a voting member", () -> activities.membershipWait.awaitNewMemberReady(ready));
      }
      return added;
    } catch (ActivityFailure | ApplicationFailure e) {
      throw giveUpJoin(request, failed, replacement, version, e);
    }
  }

  private ApplicationFailure giveUpJoin(ReplaceMemberRequest request, MemberPlacement failed, MemberPlacement replacement,
      String version, RuntimeException cause) {
    String cluster = request.cluster();
    String why = Failures.rootMessage(cause);
    NewMemberRequest onHost = new NewMemberRequest(cluster, replacement, version);
    String log = logTail(onHost);
    List<String> undoProblems = new ArrayList<>();
    // compensation runs even when the runbook itself was cancelled
    Workflow.newDetachedCancellationScope(() -> {
      try {
        progress.run("compensate: remove " + replacement.name() + " from the etcd membership",
            () -> activities.membership.removeMember(new RemoveMemberRequest(cluster, replacement.peerUrl())));
      } catch (ActivityFailure e) {
        undoProblems.add("removing it again failed (" + Failures.rootMessage(e) + "): remove the member with peer URL "
            + replacement.peerUrl() + " by hand (etcdctl member list, then etcdctl member remove <id>)");
      }
      try {
        progress.run("compensate: stop " + replacement.name() + " and keep its data dir aside", () -> activities.newMember.discard(onHost));
      } catch (ActivityFailure e) {
        undoProblems.add("stopping it on " + replacement.host() + " failed (" + Failures.rootMessage(e) + "): stop it by hand");
      }
    }).run();
    String state = describe(cluster);
    return FailureType.ReplacementJoinFailed.nonRetryable("replacement of " + failed.name() + " in cluster " + cluster + " failed: "
        + "the new member " + replacement.name() + " (" + replacement.peerUrl() + " on " + replacement.host() + ") could not join: "
        + why + log + (undoProblems.isEmpty()
            ? ". It was removed from the membership again and its etcd stopped; its data dir is kept aside."
            : ". Undoing it was not complete: " + String.join("; ", undoProblems) + ".")
        + " " + failed.name() + " stays removed. " + state + " Next: fix " + replacement.host()
        + " (see the log above), then start ReplaceMember for " + failed.name() + " again: it skips the removal");
  }

  /**
   * kube-apiservers one host at a time: the failed member's client URL becomes the new member's, then the host must be
   * healthy before the next one is touched; one that is not gets its previous manifest back and the runbook stops.
   */
  private List<String> updateApiServers(ReplaceMemberRequest request, MemberPlacement failed, MemberPlacement replacement) {
    String cluster = request.cluster();
    List<String> hosts = activities.apiServer.controlPlaneHosts(new ClusterRef(cluster));
    List<String> updated = new ArrayList<>();
    List<String> done = new ArrayList<>();
    for (String host : hosts) {
      progress.awaitResumed();
      progress.member(host);
      boolean changed = progress.record(host + ": --etcd-servers " + failed.clientUrl() + " -> " + replacement.clientUrl(),
          () -> activities.apiServer.replaceEtcdServer(new ReplaceEtcdServerRequest(cluster, host, failed.clientUrl(),
              replacement.clientUrl())));
      try {
        progress.run(host + ": kube-apiserver healthy", () -> activities.apiServerWait.awaitHealthy(
            new AwaitApiServerRequest(cluster, host, request.effectiveApiServerTimeoutSeconds())));
      } catch (ActivityFailure e) {
        String restored = "";
        if (changed) {
          try {
            progress.run(host + ": put the previous manifest back", () -> activities.apiServer.restoreManifest(new ControlPlaneRef(cluster, host)));
            restored = " Its previous manifest was put back.";
          } catch (ActivityFailure restoreFailed) {
            restored = " Putting its previous manifest back failed too (" + Failures.rootMessage(restoreFailed) + "): restore it by"
                + " hand from the hidden .etcd-runbooks.previous file beside it.";
          }
        }
        List<String> notYet = hosts.subList(hosts.indexOf(host) + 1, hosts.size());
        throw FailureType.ApiServerUpdateFailed.nonRetryable("replacement of " + failed.name() + " in cluster " + cluster + ": the"
            + " kube-apiserver on " + host + " did not become healthy" + (changed ? " after its --etcd-servers changed to list "
            + replacement.clientUrl() : "") + ": " + Failures.rootMessage(e) + "." + restored + " The etcd side is done and"
            + " recorded: " + replacement.name() + " replaced " + failed.name() + ". Apiservers already on the new set: " + done
            + "; not yet: " + notYet + ". Next: read that apiserver's log, fix it, then start ReplaceMember for "
            + failed.name() + " again or edit the remaining manifests by hand");
      }
      done.add(host);
      if (changed) updated.add(host);
    }
    progress.member("");
    return updated;
  }

  private List<EtcdMember> postflight(String cluster) {
    ClusterRef ref = new ClusterRef(cluster);
    ClusterState state = progress.record("discover", () -> activities.etcd.discover(ref));
    List<String> problems = new ArrayList<>(ClusterChecks.memberProblems(state));
    List<EtcdMember> members = progress.record("etcd member list", () -> activities.membership.listMembers(ref));
    if (members.size() != state.members().size()) {
      problems.add("etcd has " + members.size() + " members " + names(members, null) + ", the inventory "
          + state.members().size() + " " + state.members().stream().map(MemberStatus::name).toList());
    }
    if (problems.isEmpty()) {
      ConsistencyReport consistency = progress.record("consistency", () -> activities.etcd.checkConsistency(ref));
      problems.addAll(ClusterChecks.consistencyProblems(consistency));
    }
    if (!problems.isEmpty()) {
      throw FailureType.PostflightFailed.nonRetryable("member replacement in cluster " + cluster + " finished but postflight found:"
          + "\n  - " + String.join("\n  - ", problems));
    }
    return members;
  }

  /** etcd's initial-cluster for the new member: every member's name=peerURL, the new member (not started yet) by its name. */
  static String initialCluster(List<EtcdMember> members, MemberPlacement replacement) {
    List<String> entries = new ArrayList<>();
    for (EtcdMember m : members) {
      String name = m.hasPeerUrl(replacement.peerUrl()) ? replacement.name() : m.name();
      if (name.isEmpty()) {
        throw FailureType.ReplacementJoinFailed.nonRetryable("etcd member " + m.hexId() + " " + m.peerUrls() + " was added but never"
            + " started, so the new member's initial cluster cannot name it; remove it (etcdctl member remove " + m.hexId()
            + ") and run again");
      }
      m.peerUrls().forEach(url -> entries.add(name + "=" + url));
    }
    return String.join(",", entries);
  }

  private String logTail(NewMemberRequest onHost) {
    try {
      String tail = activities.newMember.logTail(onHost).strip();
      return tail.isEmpty() ? "" : ". Last log lines of " + onHost.member().name() + ":\n" + tail + "\n";
    } catch (ActivityFailure e) {
      return " (its log is unreadable: " + Failures.rootMessage(e) + ")";
    }
  }

  private String describe(String cluster) {
    try {
      ClusterState s = activities.etcd.discover(new ClusterRef(cluster));
      return "Cluster now: " + s.members().stream().map(m -> m.name() + (m.healthy() ? " healthy" : " UNHEALTHY"))
          .collect(Collectors.joining(", ")) + "; leader " + s.leaderName() + ".";
    } catch (ActivityFailure e) {
      return "Cluster state unknown: " + Failures.rootMessage(e) + ".";
    }
  }

  private static List<String> names(List<EtcdMember> members, MemberPlacement replacement) {
    return members.stream().map(m -> m.name().isEmpty() && replacement != null && m.hasPeerUrl(replacement.peerUrl())
        ? replacement.name() : m.name()).toList();
  }

  private static ReplaceMemberResult result(ReplaceMemberRequest request, String outcome, String removedId, MemberPlacement replacement,
      String newId, boolean learner, List<EtcdMember> members, List<String> apiServers, List<String> notes) {
    return new ReplaceMemberResult(request.cluster(), outcome, request.failedMember(), removedId, replacement, newId, learner,
        names(members, replacement), apiServers, notes);
  }

  private static ApplicationFailure refuse(String cluster, String member, List<String> problems) {
    return FailureType.ReplaceRefused.nonRetryable("replacement of " + member + " in cluster " + cluster
        + " refused, nothing was touched:\n  - " + String.join("\n  - ", problems));
  }
}
