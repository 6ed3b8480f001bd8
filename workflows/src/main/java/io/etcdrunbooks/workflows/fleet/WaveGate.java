package io.etcdrunbooks.workflows.fleet;

import io.etcdrunbooks.workflows.activities.ApiServerActivities.AwaitApiServerRequest;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Judges a wave before the next one starts: its upgraded clusters run for the bake time, then each
 * cluster's kube-apiservers must be ready. An etcd postflight alone passed the upgrade in seed 003,
 * whose trouble showed only as kubelets flapping NotReady; a cluster that fails here counts as
 * failed against the failure budget.
 */
final class WaveGate {

  /** How long each kube-apiserver may take to answer ready once the bake is over. */
  static final int READY_WITHIN_SECONDS = 60;

  private WaveGate() {}

  static void judge(FleetRun run, FleetWave wave) {
    List<String> upgraded =
        wave.clusters().stream()
            .filter(c -> run.outcome(c).state().equals(ClusterOutcome.UPGRADED))
            .toList();
    if (upgraded.isEmpty()) return;
    NodeWatches nodes =
        !run.request.skipKubernetesGate() && watchesNodes()
            ? NodeWatches.start(run, upgraded)
            : NodeWatches.NONE;
    // a bake that ended early leaves the other clusters' watches cut short, not failed
    if (bake(run, wave, nodes)) nodes.cancel();
    if (run.request.skipKubernetesGate() || run.progress.isCancelRequested()) return;
    String when = run.request.bakeMinutes() > 0 ? "the wave's bake" : "the wave";
    for (String cluster : upgraded) {
      List<String> why = new ArrayList<>();
      List<String> apiServers = notReady(run, cluster);
      if (!apiServers.isEmpty())
        why.add("kube-apiserver is not ready after " + when + ": " + String.join("; ", apiServers));
      List<String> nodeProblems = nodes.problems(run, cluster);
      if (!nodeProblems.isEmpty())
        why.add("its nodes were not Ready during " + when + ": " + String.join("; ", nodeProblems));
      if (!why.isEmpty())
        FleetWaves.failed(run, cluster, "upgraded, but " + String.join("; ", why));
    }
  }

  private static boolean watchesNodes() {
    return FleetPatches.NODE_GATE.applies();
  }

  /**
   * The bake; it ends early on a cancel, or once nodes that went NotReady fail enough clusters to
   * reach the failure budget (the fleet halts then whatever the rest of the bake shows).
   *
   * @return whether it ended early
   */
  private static boolean bake(FleetRun run, FleetWave wave, NodeWatches nodes) {
    int minutes = run.request.bakeMinutes();
    if (minutes <= 0) return false;
    run.progress.step("wave " + wave.name() + ": baking for " + minutes + " min");
    int failedBefore = run.inState(ClusterOutcome.FAILED).size();
    return Workflow.await(
        Duration.ofMinutes(minutes),
        () ->
            run.progress.isCancelRequested()
                || failedBefore + nodes.failed() >= run.request.failureBudget());
  }

  private static List<String> notReady(FleetRun run, String cluster) {
    List<String> problems = new ArrayList<>();
    List<String> hosts =
        run.progress.record(
            cluster + ": control-plane hosts",
            () -> run.activities.apiServer.controlPlaneHosts(new ClusterRef(cluster)));
    for (String host : hosts) {
      try {
        run.progress.run(
            cluster + ": kube-apiserver on " + host + " ready",
            () ->
                run.activities.apiServerWait.awaitHealthy(
                    new AwaitApiServerRequest(cluster, host, READY_WITHIN_SECONDS)));
      } catch (ActivityFailure e) {
        problems.add(host + ": " + Failures.rootMessage(e));
      }
    }
    return problems;
  }
}
