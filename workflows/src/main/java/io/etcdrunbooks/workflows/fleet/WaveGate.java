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

  /**
   * 2026-11-26: each wave baked (bakeMinutes) and its upgraded clusters' kube-apiservers asked for
   * readiness before the next wave.
   */
  static final String CHANGE_ID = "fleet-wave-gate";

  /** How long each kube-apiserver may take to answer ready once the bake is over. */
  static final int READY_WITHIN_SECONDS = 60;

  private WaveGate() {}

  static void judge(FleetRun run, FleetWave wave) {
    List<String> upgraded =
        wave.clusters().stream()
            .filter(c -> run.outcome(c).state().equals(ClusterOutcome.UPGRADED))
            .toList();
    if (upgraded.isEmpty()) return;
    bake(run, wave);
    if (run.request.skipKubernetesGate() || run.progress.isCancelRequested()) return;
    for (String cluster : upgraded) {
      List<String> problems = notReady(run, cluster);
      if (problems.isEmpty()) continue;
      FleetWaves.failed(
          run,
          cluster,
          "upgraded, but kube-apiserver is not ready after the wave"
              + (run.request.bakeMinutes() > 0 ? "'s bake: " : ": ")
              + String.join("; ", problems));
    }
  }

  private static void bake(FleetRun run, FleetWave wave) {
    int minutes = run.request.bakeMinutes();
    if (minutes <= 0) return;
    run.progress.step("wave " + wave.name() + ": baking for " + minutes + " min");
    // a cancel ends the bake: the fleet stops at its next safe point
    Workflow.await(Duration.ofMinutes(minutes), run.progress::isCancelRequested);
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
