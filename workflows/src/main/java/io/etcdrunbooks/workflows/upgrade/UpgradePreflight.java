package io.etcdrunbooks.workflows.upgrade;

import io.etcdrunbooks.workflows.activities.EtcdActivities.ConsistencyRequest;
import io.etcdrunbooks.workflows.activities.HostActivities.TranslateFlagsRequest;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.model.ConsistencyReport;
import io.etcdrunbooks.workflows.model.EtcdVersion;
import io.etcdrunbooks.workflows.model.KeyspaceHashes;
import io.etcdrunbooks.workflows.model.MemberFlags;
import io.etcdrunbooks.workflows.model.MemberRef;
import io.etcdrunbooks.workflows.model.MemberStatus;
import io.etcdrunbooks.workflows.model.VersionOffer;
import io.etcdrunbooks.workflows.phases.Activities;
import io.etcdrunbooks.workflows.phases.ApiServerBackends;
import io.etcdrunbooks.workflows.phases.CertificateExpiry;
import io.etcdrunbooks.workflows.phases.ClusterChecks;
import io.etcdrunbooks.workflows.phases.HostAccessPreflight;
import io.etcdrunbooks.workflows.phases.PhasePatches;
import io.etcdrunbooks.workflows.phases.Refusal;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/** The PREFLIGHT phase of an upgrade: every reason not to start, or none. */
final class UpgradePreflight {

  private UpgradePreflight() {}

  private static boolean readsImageTags() {
    return UpgradePatches.IMAGE_TAGS.applies();
  }

  private static VersionOffer offer(UpgradeRun run) {
    Activities activities = run.ctx.activities();
    return readsImageTags()
        ? activities.releases.offer(run.ctx.ref())
        : VersionOffer.fromReleaseStore(activities.releases.availableVersions(run.ctx.ref()));
  }

  /**
   * A kube-apiserver that reads etcd2 loses its store when 3.4 turns the v2 API off, however few
   * keys the v2 store holds now (a new cluster's apiserver writes there from its first start).
   */
  private static List<String> apiServersOnEtcd2(UpgradeRun run) {
    List<String> problems = new ArrayList<>();
    ApiServerBackends.read(run.ctx, run.ctx.activities().apiServer.controlPlaneHosts(run.ctx.ref()))
        .forEach(
            (host, backend) -> {
              if ("etcd2".equals(backend)) {
                problems.add(
                    ("kube-apiserver on %s reads etcd2 (--storage-backend=etcd2): etcd 3.4 turns the"
                            + " v2 API off and 3.6 removes the v2 store, so it would lose its data."
                            + " Run the MigrateV2ToV3 runbook first (docs/runbooks/migrate-v2-to-v3.md)")
                        .formatted(host));
              }
            });
    return problems;
  }

  /**
   * Says which renamed flags each member gets translated for the target, and refuses the ones that
   * cannot be (a systemd unit is not edited).
   */
  private static List<String> flagTranslations(UpgradeRun run) {
    if (!PhasePatches.TRANSLATE_FLAGS.applies()) return List.of();
    String target = run.ladder.get(run.ladder.size() - 1).toString();
    List<String> problems = new ArrayList<>();
    if (readsInParallel()) {
      List<MemberStatus> members = reachable(run);
      List<Promise<List<String>>> reads = new ArrayList<>();
      for (MemberStatus m : members) {
        reads.add(
            Async.function(
                run.ctx.activities().host::translateFlags,
                new TranslateFlagsRequest(run.cluster(), m.name(), target, false)));
      }
      run.ctx
          .progress()
          .run(
              "flags to translate for " + target + " on " + names(members),
              () -> {
                for (int i = 0; i < members.size(); i++) {
                  try {
                    List<String> changes = reads.get(i).get();
                    if (!changes.isEmpty())
                      run.ctx
                          .progress()
                          .message(
                              members.get(i).name()
                                  + ": flags translated when it switches: "
                                  + changes);
                  } catch (ActivityFailure e) {
                    problems.add(Failures.rootMessage(e));
                  }
                }
              });
      return problems;
    }
    for (MemberStatus m : run.state.members()) {
      if (!m.reachable()) continue;
      try {
        List<String> changes =
            run.ctx
                .progress()
                .record(
                    m.name() + ": flags to translate for " + target,
                    () ->
                        run.ctx
                            .activities()
                            .host
                            .translateFlags(
                                new TranslateFlagsRequest(run.cluster(), m.name(), target, false)));
        if (!changes.isEmpty()) {
          run.ctx.progress().message(m.name() + ": flags translated when it switches: " + changes);
        }
      } catch (ActivityFailure e) {
        problems.add(Failures.rootMessage(e));
      }
    }
    return problems;
  }

  /**
   * The members' flags are read on their hosts all at once, not one after the other (each read may
   * be the first login to its host). Upgrades started before replay reading in turn.
   */
  private static boolean readsInParallel() {
    return UpgradePatches.PARALLEL_READS.applies();
  }

  private static List<MemberStatus> reachable(UpgradeRun run) {
    return run.state.members().stream().filter(MemberStatus::reachable).toList();
  }

  private static String names(List<MemberStatus> members) {
    return String.join(", ", members.stream().map(MemberStatus::name).toList());
  }

  /**
   * Flags the target's own binary does not list in its {@code --help} (read on the worker from the
   * binary source), beyond those the removal table names or the switch translates: etcd would not
   * start with them ("flag provided but not defined").
   */
  private static List<String> unknownToTheTarget(
      UpgradeRun run, List<MemberFlags> flags, Supplier<Optional<List<String>>> knownRead) {
    Optional<List<String>> takes = knownRead.get();
    if (takes.isEmpty()) return List.of();
    List<String> known = takes.get();
    String target = run.ladder.get(run.ladder.size() - 1).toString();
    List<String> problems = new ArrayList<>();
    for (MemberFlags member : flags) {
      for (String flag : member.flagNames()) {
        if (known.contains(flag)
            || FlagTranslations.translatable(flag)
            || FlagRules.removes(run.running, run.ladder, flag)) continue;
        problems.add(
            ("member %s runs with %s, which etcd %s does not list in its --help: it would not"
                    + " start (\"flag provided but not defined\"); remove or rename it where the"
                    + " member's flags live and try again")
                .formatted(member.member(), flag, target));
      }
    }
    return problems;
  }

  /** The flags the target's --help lists; empty for upgrades started before the check. */
  private static Optional<List<String>> knownToTheTarget(UpgradeRun run) {
    if (!UpgradePatches.HELP_CHECK.applies()) return Optional.empty();
    String target = run.ladder.get(run.ladder.size() - 1).toString();
    return Optional.of(
        run.ctx
            .progress()
            .record(
                "flags etcd " + target + " takes",
                () -> run.ctx.activities().releases.flagsOf(target)));
  }

  /** How each running member was started: what the next binary would be started with. */
  private static List<MemberFlags> flagsOfRunningMembers(UpgradeRun run) {
    if (readsInParallel()) {
      List<MemberStatus> members = reachable(run);
      List<Promise<MemberFlags>> reads = new ArrayList<>();
      for (MemberStatus m : members) {
        reads.add(
            Async.function(
                run.ctx.activities().host::memberFlags, new MemberRef(run.cluster(), m.name())));
      }
      return run.ctx
          .progress()
          .record("flags of " + names(members), () -> reads.stream().map(Promise::get).toList());
    }
    List<MemberFlags> flags = new ArrayList<>();
    for (MemberStatus m : run.state.members()) {
      if (!m.reachable()) continue;
      MemberRef ref = new MemberRef(run.cluster(), m.name());
      flags.add(
          run.ctx
              .progress()
              .record("flags of " + m.name(), () -> run.ctx.activities().host.memberFlags(ref)));
    }
    return flags;
  }

  /**
   * What the ladder needs beyond new binaries: etcd's version rules, and (once the hosts passed the
   * access check, since they are logged in to) the members' flags and quota and the apiservers'
   * storage backend.
   */
  private static List<String> transitionProblems(
      UpgradeRun run, boolean hostsUsable, Supplier<List<MemberFlags>> flagsRead) {
    List<String> problems = new ArrayList<>();
    // asked whatever the ladder, as before this method existed: recorded histories replay alike
    boolean rules = UpgradePatches.TRANSITION_RULES.applies();
    if (run.ladder.isEmpty()) return problems;
    if (rules) {
      problems.addAll(TransitionRules.problems(run.state, run.running, run.ladder));
      if (hostsUsable) {
        // in upgrades that overlap their checks, the three reads on the hosts and the binary
        // source go at once; before, one after the other
        boolean atOnce = UpgradePhases.overlapsChecks();
        Promise<List<String>> translations =
            atOnce ? Async.function(() -> flagTranslations(run)) : null;
        Promise<Optional<List<String>>> known =
            atOnce ? Async.function(() -> knownToTheTarget(run)) : null;
        List<MemberFlags> flags = flagsRead.get();
        problems.addAll(FlagRules.problems(run.running, run.ladder, flags));
        problems.addAll(
            unknownToTheTarget(
                run, flags, known == null ? () -> knownToTheTarget(run) : known::get));
        problems.addAll(QuotaRule.problems(run.state, flags));
        problems.addAll(translations == null ? flagTranslations(run) : translations.get());
      }
    }
    if (hostsUsable
        && TransitionRules.endsV2Api(run.running, run.ladder)
        && UpgradePatches.APISERVER_BACKENDS.applies()) {
      problems.addAll(apiServersOnEtcd2(run));
    }
    return problems;
  }

  static void run(UpgradeRun run) {
    Activities activities = run.ctx.activities();
    List<String> problems = new ArrayList<>(ClusterChecks.memberProblems(run.state));
    run.rungRules = UpgradePatches.RUNG_RULES.applies();
    if (run.rungRules) problems.addAll(RungRules.membership(run.state));
    problems.addAll(CertificateExpiry.problems(run.state));
    boolean atOnce = UpgradePhases.overlapsChecks();
    run.fewerHashScans =
        atOnce && run.state.revision() > 0 && UpgradePatches.FEWER_HASH_SCANS.applies();
    Reads reads = atOnce ? Reads.atOnce(run, problems.isEmpty()) : Reads.inTurn(run);
    if (problems.isEmpty()) {
      ConsistencyReport consistency =
          run.ctx.progress().record("consistency", () -> reads.consistency().get());
      problems.addAll(ClusterChecks.consistencyProblems(consistency));
      if (run.fewerHashScans) {
        run.beforeHashes =
            new KeyspaceHashes(
                consistency.revision(), consistency.compactRevision(), consistency.hashByMember());
      }
    }
    VersionOffer available =
        run.ctx.progress().record("binary source", () -> reads.available().get());
    try {
      run.running = EtcdVersion.parse("running version", ClusterChecks.runningVersion(run.state));
      EtcdVersion target = EtcdVersion.parse("target version", run.request.targetVersion());
      if (OlderTarget.applies(run.running, target)) {
        problems.add(OlderTarget.refusal(run.cluster(), run.running, target));
      } else {
        run.ladder = VersionLadder.plan(run.running, target, available);
      }
    } catch (IllegalArgumentException e) {
      problems.add(e.getMessage());
    }
    List<String> hostProblems = reads.hostProblems().get();
    problems.addAll(hostProblems);
    problems.addAll(transitionProblems(run, hostProblems.isEmpty(), reads.flags()));
    if (!problems.isEmpty()) throw Refusal.of(run.what(), problems, FailureType.PreflightRefused);
  }

  /**
   * The preflight's reads of the cluster, the binary source and the hosts. Upgrades started before
   * {@link UpgradePatches#OVERLAPPED_CHECKS} make each when it is needed, one after the other;
   * later ones start them all at once (none depends on another's answer) and each is waited for
   * where its answer is used.
   */
  private record Reads(
      Supplier<ConsistencyReport> consistency,
      Supplier<VersionOffer> available,
      Supplier<List<String>> hostProblems,
      Supplier<List<MemberFlags>> flags) {

    static Reads inTurn(UpgradeRun run) {
      Activities activities = run.ctx.activities();
      return new Reads(
          () -> activities.etcd.checkConsistency(run.ctx.ref()),
          () -> offer(run),
          () ->
              HostAccessPreflight.problems(
                  activities, run.ctx.progress(), run.cluster(), List.of(), false),
          () -> flagsOfRunningMembers(run));
    }

    static Reads atOnce(UpgradeRun run, boolean membersFine) {
      Activities activities = run.ctx.activities();
      Promise<ConsistencyReport> consistency =
          !membersFine
              ? Workflow.newPromise()
              : run.fewerHashScans
                  ? Async.function(
                      activities.etcd::checkConsistencyAt,
                      new ConsistencyRequest(run.cluster(), run.state.revision(), List.of()))
                  : Async.function(activities.etcd::checkConsistency, run.ctx.ref());
      Promise<VersionOffer> available =
          readsImageTags()
              ? Async.function(activities.releases::offer, run.ctx.ref())
              : Async.function(activities.releases::availableVersions, run.ctx.ref())
                  .thenApply(VersionOffer::fromReleaseStore);
      Promise<List<String>> hosts =
          Async.function(
              () ->
                  HostAccessPreflight.problems(
                      activities, run.ctx.progress(), run.cluster(), List.of(), false));
      // the flags are read once the access check has passed, over the sessions it opened: read
      // beside it, every host would be logged in to twice at once
      return new Reads(
          consistency::get, available::get, hosts::get, () -> flagsOfRunningMembers(run));
    }
  }
}
