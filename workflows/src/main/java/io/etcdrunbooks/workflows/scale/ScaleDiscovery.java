package io.etcdrunbooks.workflows.scale;

import io.etcdrunbooks.workflows.activities.NewMemberActivities.NewMemberRequest;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.ProgressTracker;
import io.etcdrunbooks.workflows.model.EtcdVersion;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.phases.Activities;
import io.etcdrunbooks.workflows.phases.CertificateExpiry;
import io.etcdrunbooks.workflows.phases.ClusterChecks;
import io.etcdrunbooks.workflows.phases.Discovery;
import io.etcdrunbooks.workflows.phases.HostAccessPreflight;
import io.etcdrunbooks.workflows.phases.Refusal;
import io.temporal.failure.ActivityFailure;
import java.util.ArrayList;
import java.util.List;

/**
 * DISCOVER and PREFLIGHT of a scaling: what the inventory and etcd say, the plan made from them
 * ({@link ScalePlanning}), and every reason not to go on, listed at once.
 */
final class ScaleDiscovery {

  private ScaleDiscovery() {}

  static void discover(ScaleRun run) {
    List<String> inputProblems = ScalePlanning.inputProblems(run.request);
    if (!inputProblems.isEmpty())
      throw Refusal.of(run.what(), inputProblems, FailureType.ScaleRefused);
    look(run);
  }

  /** Reads the inventory, the cluster and etcd's member list, and plans from them. */
  private static void look(ScaleRun run) {
    Activities activities = run.ctx.activities();
    try {
      run.inventory = activities.inventory.members(run.ctx.ref());
    } catch (ActivityFailure e) {
      if (FailureType.UnknownCluster.isTypeOf(e))
        throw Refusal.of(run.what(), List.of(Failures.rootMessage(e)), FailureType.ScaleRefused);
      throw e;
    }
    run.state =
        Discovery.discoverOrRefuse(
            activities, run.ctx.progress(), run.cluster(), run.what(), FailureType.ScaleRefused);
    run.etcdMembers = Discovery.etcdMembersIfAnswered(run.ctx);
    run.version = ClusterChecks.runningVersion(run.state);
    run.learner = EtcdVersion.find(run.version).filter(EtcdVersion::supportsLearners).isPresent();
    run.plan = ScalePlanning.plan(run.request, run.inventory, run.state);
  }

  /** The cluster looked at again (after an approval): what now forbids the plan. */
  static List<String> lookAgain(ScaleRun run) {
    look(run);
    return clusterProblems(run);
  }

  static void preflight(ScaleRun run) {
    List<String> problems = clusterProblems(run);
    if (!run.plan.changes()) {
      if (!problems.isEmpty()) throw Refusal.of(run.what(), problems, FailureType.ScaleRefused);
      return;
    }
    Activities activities = run.ctx.activities();
    ProgressTracker progress = run.ctx.progress();
    try {
      progress.run("inventory writable", () -> activities.inventory.checkWritable(run.ctx.ref()));
    } catch (ActivityFailure e) {
      problems.add(Failures.rootMessage(e));
    }
    // a member being removed may be down: its host is not required
    List<String> notRequired =
        run.plan.remove().stream()
            .map(MemberPlacement::name)
            .filter(n -> run.state.member(n).map(s -> !s.reachable()).orElse(true))
            .toList();
    problems.addAll(
        HostAccessPreflight.problems(activities, progress, run.cluster(), notRequired, true));
    if (problems.isEmpty()) {
      for (MemberPlacement m : run.plan.add()) {
        try {
          progress.run(
              "host of %s (%s) usable for etcd %s".formatted(m.name(), m.host(), run.version),
              () ->
                  activities.newMember.checkHost(
                      new NewMemberRequest(run.cluster(), m, run.version)));
        } catch (ActivityFailure e) {
          problems.add(Failures.rootMessage(e));
        }
      }
    }
    if (!problems.isEmpty()) throw Refusal.of(run.what(), problems, FailureType.ScaleRefused);
  }

  private static List<String> clusterProblems(ScaleRun run) {
    List<String> problems =
        new ArrayList<>(
            ScalePlanning.problems(
                run.request, run.inventory, run.state, run.etcdMembers, run.plan));
    if (run.plan.changes()) {
      problems.addAll(CertificateExpiry.problems(run.state));
      if (!run.plan.add().isEmpty() && run.version.isEmpty())
        problems.add("no member reports its etcd version, so new members cannot be given it");
    }
    return problems;
  }
}
