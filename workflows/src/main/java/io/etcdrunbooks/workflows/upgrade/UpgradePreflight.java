package io.etcdrunbooks.workflows.upgrade;

import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.model.ConsistencyReport;
import io.etcdrunbooks.workflows.model.MemberFlags;
import io.etcdrunbooks.workflows.model.MemberRef;
import io.etcdrunbooks.workflows.model.MemberStatus;
import io.etcdrunbooks.workflows.phases.Activities;
import io.etcdrunbooks.workflows.phases.ClusterChecks;
import io.etcdrunbooks.workflows.phases.HostAccessPreflight;
import io.etcdrunbooks.workflows.phases.Refusal;
import io.temporal.workflow.Workflow;
import java.util.ArrayList;
import java.util.List;

/** The PREFLIGHT phase of an upgrade: every reason not to start, or none. */
final class UpgradePreflight {

  private UpgradePreflight() {}

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
      }
    }
    if (!problems.isEmpty()) throw Refusal.of(run.what(), problems, FailureType.PreflightRefused);
  }
}
