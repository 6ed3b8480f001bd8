package io.etcdrunbooks.workflows.recover;

import io.etcdrunbooks.workflows.activities.NewMemberActivities.NewMemberRequest;
import io.etcdrunbooks.workflows.activities.NewMemberActivities.PlacementRequest;
import io.etcdrunbooks.workflows.activities.RecoveryActivities.DataDirRevisionRequest;
import io.etcdrunbooks.workflows.activities.RestoreActivities.CheckBackupRequest;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.ProgressTracker;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.EtcdVersion;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.model.MemberRef;
import io.etcdrunbooks.workflows.model.MemberStatus;
import io.etcdrunbooks.workflows.phases.Activities;
import io.etcdrunbooks.workflows.phases.CertificateExpiry;
import io.etcdrunbooks.workflows.phases.Discovery;
import io.etcdrunbooks.workflows.phases.HostAccessPreflight;
import io.etcdrunbooks.workflows.phases.Refusal;
import io.etcdrunbooks.workflows.replacemember.ReplacementPreflight;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * DISCOVER, WAITING and PREFLIGHT of a recovery: the loss confirmed over time, the survivor chosen,
 * where each lost member is rebuilt, the newest verified backup, and every reason not to go on.
 */
final class RecoverDiscovery {

  private static final Duration LOOK_INTERVAL = Duration.ofSeconds(5);

  private RecoverDiscovery() {}

  static void discover(RecoverRun run) {
    List<String> problems = inputProblems(run.request);
    if (!problems.isEmpty()) throw Refusal.of(run.what(), problems, FailureType.RecoverRefused);
    try {
      run.inventory = run.ctx.activities().inventory.members(run.ctx.ref());
    } catch (ActivityFailure e) {
      if (FailureType.UnknownCluster.isTypeOf(e))
        throw Refusal.of(run.what(), List.of(Failures.rootMessage(e)), FailureType.RecoverRefused);
      throw e;
    }
    problems.addAll(run.request.inventoryProblems(run.inventory));
    if (!problems.isEmpty()) throw Refusal.of(run.what(), problems, FailureType.RecoverRefused);
    run.state = look(run);
  }

  /** What is wrong with the request itself, before any cluster is looked at. */
  static List<String> inputProblems(RecoverQuorumRequest request) {
    return request.problems();
  }

  /**
   * WAITING: the loss must hold for confirmLossSeconds, looked at every 5 s; quorum seen at any
   * look refuses (a partition that heals is not a loss). A dry run looks once.
   */
  static void confirmLoss(RecoverRun run) {
    long until =
        Workflow.currentTimeMillis()
            + (run.request.dryRun() ? 0 : run.request.effectiveConfirmLossSeconds() * 1000L);
    ProgressTracker progress = run.ctx.progress();
    while (true) {
      refuseIfQuorumPresent(run, run.state);
      long left = until - Workflow.currentTimeMillis();
      if (left <= 0) break;
      progress.message(
          "no quorum read and %s; looking again for %d s before anything is planned"
              .formatted(answering(run.state), (left + 999) / 1000));
      Workflow.sleep(Duration.ofMillis(Math.min(LOOK_INTERVAL.toMillis(), left)));
      run.state = look(run);
    }
    progress.message("loss confirmed: no quorum read and " + answering(run.state));
  }

  /** The cluster looked at again just before anything is touched (after the approval). */
  static void lookAgain(RecoverRun run) {
    run.state = look(run);
    refuseIfQuorumPresent(run, run.state);
    if (run.survivorServing
        && !run.state.member(run.survivor.name()).map(MemberStatus::reachable).orElse(false)) {
      throw Refusal.of(
          run.what(),
          List.of(
              "the survivor %s no longer answers: start the runbook again to choose another"
                  .formatted(run.survivor.name())),
          FailureType.RecoverRefused);
    }
  }

  static void preflight(RecoverRun run) {
    Activities activities = run.ctx.activities();
    ProgressTracker progress = run.ctx.progress();
    List<String> problems = new ArrayList<>();
    run.votersOnly = RecoverPatches.SURVIVOR_NOT_LEARNER.applies();
    if (run.votersOnly) {
      String asked = run.request.survivor();
      if (run.state.member(asked).map(MemberStatus::learner).orElse(false))
        throw Refusal.of(
            run.what(),
            List.of(
                ("survivor %s is a learner: it does not vote and may lack what the voters"
                        + " committed; name a voting member, or leave survivor out")
                    .formatted(asked)),
            FailureType.RecoverRefused);
    }
    run.survivor = chooseSurvivor(run);
    if (run.survivor == null) run.survivor = survivorOnDisk(run);
    run.backup = newestVerifiedBackup(run);
    if (run.survivor != null) {
      if (run.survivorServing) {
        MemberStatus s = run.state.member(run.survivor.name()).orElseThrow();
        run.survivorAppliedIndex = s.raftAppliedIndex();
        run.version = s.serverVersion();
        MemberRef ref = new MemberRef(run.cluster(), run.survivor.name());
        run.survivorRevision =
            progress.record(
                run.survivor.name() + ": revision", () -> activities.recovery.memberRevision(ref));
      }
      run.learner = EtcdVersion.find(run.version).filter(EtcdVersion::supportsLearners).isPresent();
      placeLostMembers(run);
      run.fencing = RecoverFencing.fences();
      run.apiServersEarly = RecoverPatches.APISERVERS_BEFORE_JOIN.applies();
      if (run.fencing) RecoverFencing.readIds(run);
      problems.addAll(CertificateExpiry.problems(run.state));
      problems.addAll(RecoverRevision.choose(run));
    } else if (problems.isEmpty() && run.backup == null) {
      problems.add(
          "no member answers, no data dir holds a database, and there is no verified backup:"
              + " there is nothing to rebuild the cluster from");
    }
    try {
      progress.run("inventory writable", () -> activities.inventory.checkWritable(run.ctx.ref()));
    } catch (ActivityFailure e) {
      problems.add(Failures.rootMessage(e));
    }
    List<String> notRequired = new ArrayList<>(run.request.skipControlPlaneHosts());
    // fencing logs in to every lost member's host it can: which cannot is sorted out below
    if (!run.fromBackup() && !run.fencing) notRequired.addAll(run.rebuildAs.keySet());
    List<String> hostProblems =
        HostAccessPreflight.problems(activities, progress, run.cluster(), notRequired, true);
    if (run.fencing) hostProblems = RecoverFencing.hostProblems(run, hostProblems);
    problems.addAll(hostProblems);
    if (hostProblems.stream().anyMatch(p -> p.startsWith("control-plane host")))
      problems.add(
          "a control-plane host whose machine is gone with the lost members can be left out with"
              + " skipControlPlaneHosts: its kube-apiserver is down with it; fix its manifest when it"
              + " comes back");
    if (problems.isEmpty()) problems.addAll(rebuildHostProblems(run));
    if (!problems.isEmpty()) throw Refusal.of(run.what(), problems, FailureType.RecoverRefused);
    List<String> controlPlane =
        progress.record(
            "control-plane hosts", () -> activities.apiServer.controlPlaneHosts(run.ctx.ref()));
    List<String> unknown =
        run.request.skipControlPlaneHosts().stream()
            .filter(h -> !controlPlane.contains(h))
            .toList();
    if (!unknown.isEmpty())
      throw Refusal.of(
          run.what(),
          List.of(
              "skipControlPlaneHosts names %s, not control-plane hosts of the cluster %s"
                  .formatted(unknown, controlPlane)),
          FailureType.RecoverRefused);
    run.controlPlane =
        controlPlane.stream()
            .filter(h -> !run.request.skipControlPlaneHosts().contains(h))
            .toList();
  }

  /**
   * The answering member with the highest applied index (inventory order breaks ties), or the one
   * asked for when it answers; null when none answers (data dirs are read then).
   */
  private static MemberPlacement chooseSurvivor(RecoverRun run) {
    MemberPlacement best =
        bestSurvivor(run.state.members(), run.request.survivor(), run.votersOnly)
            .map(m -> placement(run, m.name()))
            .orElse(null);
    run.survivorServing = best != null;
    return best;
  }

  /**
   * The answering member with the highest applied index (the members' order breaks ties), or the
   * one asked for when it answers; with {@code votersOnly} never a learner: a learner does not vote
   * and may lack what the voters committed, and it would be forced into a cluster of one as a
   * learner.
   */
  static Optional<MemberStatus> bestSurvivor(
      List<MemberStatus> members, String asked, boolean votersOnly) {
    return members.stream()
        .filter(MemberStatus::reachable)
        .filter(m -> !m.serverVersion().isEmpty())
        .filter(m -> !(votersOnly && m.learner()))
        .filter(m -> asked.isEmpty() || asked.equals(m.name()))
        .max(
            Comparator.comparingLong(MemberStatus::raftAppliedIndex)
                .thenComparing(m -> -members.indexOf(m)));
  }

  /**
   * With no member serving (members restarted while quorum was lost wait for it before they serve
   * clients), the member whose data dir holds the highest revision, read on its host; null when
   * none holds a database (the backup is the way then).
   */
  private static MemberPlacement survivorOnDisk(RecoverRun run) {
    Activities activities = run.ctx.activities();
    ProgressTracker progress = run.ctx.progress();
    MemberPlacement best = null;
    for (MemberPlacement m : run.inventory) {
      if (!run.request.survivor().isEmpty() && !run.request.survivor().equals(m.name())) continue;
      if (run.votersOnly && run.state.member(m.name()).map(MemberStatus::learner).orElse(false))
        continue;
      MemberRef ref = new MemberRef(run.cluster(), m.name());
      try {
        String version =
            progress.record(
                m.name() + ": installed version", () -> activities.host.installedVersion(ref));
        long revision =
            progress.record(
                m.name() + ": revision in its data dir",
                () ->
                    activities.recovery.dataDirRevision(
                        new DataDirRevisionRequest(run.cluster(), m.name(), version)));
        if (revision > run.survivorRevision) {
          best = m;
          run.survivorRevision = revision;
          run.version = version;
        }
      } catch (ActivityFailure e) {
        progress.message(m.name() + "'s data dir could not be read: " + Failures.rootMessage(e));
      }
    }
    if (best != null)
      progress.message(
          "no member serves; %s's data dir holds revision %d, the highest"
              .formatted(best.name(), run.survivorRevision));
    return best;
  }

  private static MemberPlacement placement(RecoverRun run, String name) {
    return run.inventory.stream().filter(m -> m.name().equals(name)).findFirst().orElseThrow();
  }

  /** Each lost member's place: the replacement asked for, or its own host under a new name. */
  private static void placeLostMembers(RecoverRun run) {
    Set<String> taken = new HashSet<>();
    run.inventory.forEach(m -> taken.add(m.name()));
    for (MemberPlacement lost : run.inventory) {
      if (lost.name().equals(run.survivor.name())) continue;
      MemberPlacement requested = run.request.replacements().get(lost.name());
      String name =
          requested != null
              ? requested.name()
              : ReplacementPreflight.nameOnSameHost(lost.name(), taken);
      taken.add(name);
      run.rebuildAs.put(lost.name(), ReplacementPreflight.complete(lost, requested, name));
    }
  }

  /** Every host a lost member is rebuilt on must be usable for the survivor's version. */
  private static List<String> rebuildHostProblems(RecoverRun run) {
    List<String> problems = new ArrayList<>();
    // once the survivor is forced into a cluster of one there is no way back: whatever JOIN needs
    // on each host is looked at now, not found missing then
    boolean wholePlace = RecoverPatches.JOIN_HOST_PREFLIGHT.applies();
    for (Map.Entry<String, MemberPlacement> e : run.rebuildAs.entrySet()) {
      MemberPlacement p = e.getValue();
      MemberPlacement lost = placement(run, e.getKey());
      boolean ownPlace =
          p.host().equals(lost.host())
              && p.sshPort() == lost.sshPort()
              && p.clientUrl().equals(lost.clientUrl())
              && p.peerUrl().equals(lost.peerUrl());
      try {
        run.ctx
            .progress()
            .run(
                "host of %s (%s) usable for etcd %s".formatted(p.name(), p.host(), run.version),
                () ->
                    run.ctx
                        .activities()
                        .newMember
                        .checkHost(new NewMemberRequest(run.cluster(), p, run.version)));
        if (wholePlace)
          run.ctx
              .progress()
              .run(
                  "%s (%s) can take %s: directories, service definition%s"
                      .formatted(p.host(), p.name(), p.name(), ownPlace ? "" : ", ports free"),
                  () ->
                      run.ctx
                          .activities()
                          .newMember
                          .checkPlacement(
                              new PlacementRequest(run.cluster(), p, run.version, !ownPlace)));
      } catch (ActivityFailure f) {
        problems.add(
            ("%s is rebuilt as %s on %s, which cannot be used: %s. Fix that there, or give"
                    + " replacements.%s a host that answers and can take it")
                .formatted(e.getKey(), p.name(), p.host(), Failures.rootMessage(f), e.getKey()));
      }
    }
    return problems;
  }

  private static io.etcdrunbooks.workflows.model.BackupRecord newestVerifiedBackup(RecoverRun run) {
    try {
      return run.ctx
          .progress()
          .record(
              "newest verified backup",
              () ->
                  run.ctx
                      .activities()
                      .restore
                      .checkBackup(new CheckBackupRequest(run.cluster(), "latest", "")));
    } catch (ActivityFailure e) {
      run.ctx.progress().message("no verified backup to compare with: " + Failures.rootMessage(e));
      return null;
    }
  }

  private static void refuseIfQuorumPresent(RecoverRun run, ClusterState state) {
    List<String> reads =
        run.ctx
            .progress()
            .record(
                "linearizable reads",
                () -> run.ctx.activities().recovery.quorumReads(run.ctx.ref()));
    quorumPresent(state, reads)
        .ifPresent(
            why -> {
              throw Refusal.of(
                  run.what(),
                  List.of(
                      ("quorum is present (%s): there is no loss to recover from. Replace the"
                              + " members that are down with ReplaceMember")
                          .formatted(why)),
                  FailureType.RecoverRefused);
            });
  }

  /**
   * Why the cluster still has quorum, or empty when it has lost it: a linearizable read succeeds
   * through some member (so the cluster works, whatever the worker reaches), or a majority of the
   * members answer (an election may be under way). A leader a member still names is not trusted
   * alone: a member keeps naming a dead leader for a while.
   */
  static Optional<String> quorumPresent(ClusterState state, List<String> quorumReads) {
    if (!quorumReads.isEmpty())
      return Optional.of(
          "a linearizable read succeeds through " + quorumReads + "; " + answering(state));
    long answering = state.members().stream().filter(MemberStatus::reachable).count();
    int quorum = state.members().size() / 2 + 1;
    if (answering >= quorum)
      return Optional.of(
          answering(state) + ", a quorum of " + quorum + ": an election may be under way");
    return Optional.empty();
  }

  private static String answering(ClusterState state) {
    List<String> up =
        state.members().stream().filter(MemberStatus::reachable).map(MemberStatus::name).toList();
    return "%d of %d members answer %s".formatted(up.size(), state.members().size(), up);
  }

  private static ClusterState look(RecoverRun run) {
    return Discovery.discoverOrRefuse(
        run.ctx.activities(),
        run.ctx.progress(),
        run.cluster(),
        run.what(),
        FailureType.RecoverRefused);
  }
}
