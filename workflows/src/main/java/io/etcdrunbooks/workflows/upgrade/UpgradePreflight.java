package io.etcdrunbooks.workflows.upgrade;

import io.etcdrunbooks.workflows.activities.ApiServerActivities.ControlPlaneRef;
import io.etcdrunbooks.workflows.activities.HostActivities.TranslateFlagsRequest;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.model.ConsistencyReport;
import io.etcdrunbooks.workflows.model.MemberFlags;
import io.etcdrunbooks.workflows.model.MemberRef;
import io.etcdrunbooks.workflows.model.MemberStatus;
import io.etcdrunbooks.workflows.phases.Activities;
import io.etcdrunbooks.workflows.phases.CertificateExpiry;
import io.etcdrunbooks.workflows.phases.ClusterChecks;
import io.etcdrunbooks.workflows.phases.HostAccessPreflight;
import io.etcdrunbooks.workflows.phases.MemberVersionSwitch;
import io.etcdrunbooks.workflows.phases.Refusal;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Workflow;
import java.util.ArrayList;
import java.util.List;

/** The PREFLIGHT phase of an upgrade: every reason not to start, or none. */
final class UpgradePreflight {

  /** Upgrades started before this check shipped replay without it. */
  static final String APISERVER_BACKENDS = "apiserver-storage-backend";

  private UpgradePreflight() {}

  /**
   * A kube-apiserver that reads etcd2 loses its store when 3.4 turns the v2 API off, however few
   * keys the v2 store holds now (a new cluster's apiserver writes there from its first start).
   */
  private static List<String> apiServersOnEtcd2(UpgradeRun run) {
    List<String> problems = new ArrayList<>();
    for (String host : run.ctx.activities().apiServer.controlPlaneHosts(run.ctx.ref())) {
      String backend =
          run.ctx
              .progress()
              .record(
                  host + ": --storage-backend",
                  () ->
                      run.ctx
                          .activities()
                          .apiServer
                          .storageBackend(new ControlPlaneRef(run.cluster(), host)));
      if ("etcd2".equals(backend)) {
        problems.add(
            ("kube-apiserver on %s reads etcd2 (--storage-backend=etcd2): etcd 3.4 turns the v2"
                    + " API off and 3.6 removes the v2 store, so it would lose its data. Run the"
                    + " MigrateV2ToV3 runbook first (docs/runbooks/migrate-v2-to-v3.md)")
                .formatted(host));
      }
    }
    return problems;
  }

  /**
   * Says which renamed flags each member gets translated for the target, and refuses the ones that
   * cannot be (a systemd unit is not edited).
   */
  private static List<String> flagTranslations(UpgradeRun run) {
    if (Workflow.getVersion(MemberVersionSwitch.TRANSLATE_FLAGS, Workflow.DEFAULT_VERSION, 1) < 1)
      return List.of();
    String target = run.ladder.get(run.ladder.size() - 1);
    List<String> problems = new ArrayList<>();
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

  /** How each running member was started: what the next binary would be started with. */
  private static List<MemberFlags> flagsOfRunningMembers(UpgradeRun run) {
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

  static void run(UpgradeRun run) {
    Activities activities = run.ctx.activities();
    List<String> problems = new ArrayList<>(ClusterChecks.memberProblems(run.state));
    problems.addAll(CertificateExpiry.problems(run.state));
    if (problems.isEmpty()) {
      ConsistencyReport consistency =
          run.ctx
              .progress()
              .record("consistency", () -> activities.etcd.checkConsistency(run.ctx.ref()));
      problems.addAll(ClusterChecks.consistencyProblems(consistency));
    }
    List<String> available =
        run.ctx
            .progress()
            .record("binary source", () -> activities.releases.availableVersions(run.ctx.ref()));
    run.running = ClusterChecks.runningVersion(run.state);
    try {
      run.ladder = VersionLadder.plan(run.running, run.request.targetVersion(), available);
    } catch (IllegalArgumentException e) {
      problems.add(e.getMessage());
    }
    List<String> hostProblems =
        HostAccessPreflight.problems(
            activities, run.ctx.progress(), run.cluster(), List.of(), false);
    problems.addAll(hostProblems);
    boolean transitionRules =
        Workflow.getVersion(TransitionRules.CHANGE_ID, Workflow.DEFAULT_VERSION, 1) >= 1;
    if (transitionRules && !run.ladder.isEmpty()) {
      problems.addAll(TransitionRules.problems(run.state, run.running, run.ladder));
      // the hosts are logged in to only once they passed the access check
      if (hostProblems.isEmpty()) {
        List<MemberFlags> flags = flagsOfRunningMembers(run);
        problems.addAll(FlagRules.problems(run.running, run.ladder, flags));
        problems.addAll(QuotaRule.problems(run.state, flags));
        problems.addAll(flagTranslations(run));
      }
    }
    if (hostProblems.isEmpty()
        && !run.ladder.isEmpty()
        && TransitionRules.endsV2Api(run.running, run.ladder)
        && Workflow.getVersion(APISERVER_BACKENDS, Workflow.DEFAULT_VERSION, 1) >= 1) {
      problems.addAll(apiServersOnEtcd2(run));
    }
    if (!problems.isEmpty()) throw Refusal.of(run.what(), problems, FailureType.PreflightRefused);
  }
}
