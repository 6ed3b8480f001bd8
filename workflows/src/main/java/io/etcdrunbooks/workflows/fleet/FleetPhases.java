package io.etcdrunbooks.workflows.fleet;

import static io.etcdrunbooks.workflows.phases.RunbookPhase.always;

import io.etcdrunbooks.workflows.activities.InventoryActivities.FleetCluster;
import io.etcdrunbooks.workflows.activities.InventoryActivities.SelectClustersRequest;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.phases.PhaseRunner;
import io.etcdrunbooks.workflows.upgrade.LadderStep;
import io.etcdrunbooks.workflows.upgrade.UpgradeRequest;
import io.etcdrunbooks.workflows.upgrade.UpgradeResult;
import io.temporal.workflow.Workflow;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** The FleetUpgrade runbook, phase by phase. */
public final class FleetPhases {

  // long on purpose: a declarative table, one entry per phase with its documented description
  public static final PhaseRunner<FleetRun> RUNNER =
      new PhaseRunner<>(
          always(
              Phase.DISCOVER,
              "checks the request and selects the clusters (the selector, or the inventory's fleet)",
              FleetPhases::discover),
          always(
              Phase.DETECT,
              "runs every selected cluster's upgrade dry, as a child under its change id: version,"
                  + " health, v2 data and flags read, the plan made; a cluster refused, busy with"
                  + " another change or already on the target is listed and left alone",
              FleetPhases::detect),
          always(
              Phase.PLAN,
              "the waves: the canaries (smallest first), then a wave per value of the wave label in"
                  + " its order",
              FleetPhases::plan),
          always(
              Phase.WAVES,
              "each wave's clusters upgraded, each an UpgradeCluster child under its change id, at"
                  + " most concurrency at once; after failureBudget failed clusters nothing new"
                  + " starts; each wave's upgraded clusters bake for bakeMinutes, their nodes watched"
                  + " through their Kubernetes API meanwhile (kubernetes.kubeconfig; more NotReady than"
                  + " kubernetes.maxNotReadyNodes fails the cluster), then every kube-apiserver of"
                  + " theirs must answer ready (both unless skipKubernetesGate), else the cluster"
                  + " counts as failed; with approveBetweenWaves each wave after the first waits for"
                  + " an approval (AWAITING_APPROVAL)",
              FleetWaves::run),
          always(
              Phase.DONE,
              "every cluster's outcome; ends FleetHalted naming the failed and the untouched"
                  + " clusters when the budget was reached",
              FleetPhases::done));

  private FleetPhases() {}

  private static void discover(FleetRun run) {
    List<String> problems = run.request.problems();
    if (!problems.isEmpty()) {
      throw FailureType.FleetRefused.nonRetryable(
          "fleet upgrade refused, nothing touched: " + String.join("; ", problems));
    }
    run.selected =
        run.progress.record(
            "select clusters",
            () ->
                run.activities.inventory.selectClusters(
                    new SelectClustersRequest(run.fleet(), run.request.selector())));
    for (FleetCluster c : run.selected)
      run.set(new ClusterOutcome(c.cluster(), "", ClusterOutcome.PENDING, "", 0, 0));
    run.progress.message(
        "selected %d clusters: %s"
            .formatted(
                run.selected.size(),
                run.selected.stream()
                    .map(FleetCluster::cluster)
                    .collect(Collectors.joining(", "))));
  }

  private static void detect(FleetRun run) {
    List<String> clusters = run.selected.stream().map(FleetCluster::cluster).toList();
    new ChildRunner(run, "detection", false)
        .runAll(
            clusters,
            run.request.concurrency(),
            cluster ->
                ChildRunner.upgrade(
                    cluster,
                    UpgradeRequest.to(
                        cluster,
                        run.request.targetVersion(),
                        run.request.clusterOptions().asDryRun())),
            (cluster, outcome) -> detected(run, cluster, outcome),
            () -> false);
    run.progress.message(
        "detected: %d to upgrade, %d refused %s, %d busy %s, %d already on %s"
            .formatted(
                run.inState(ClusterOutcome.PENDING).size(),
                run.inState(ClusterOutcome.REFUSED).size(),
                run.inState(ClusterOutcome.REFUSED),
                run.inState(ClusterOutcome.BUSY).size(),
                run.inState(ClusterOutcome.BUSY),
                run.inState(ClusterOutcome.ON_TARGET).size(),
                run.request.targetVersion()));
  }

  private static void detected(FleetRun run, String cluster, ChildRunner.Ended<UpgradeResult> end) {
    ClusterOutcome was = run.outcome(cluster);
    if (end.busy()) {
      run.set(was.with(ClusterOutcome.BUSY, "another change of the cluster runs: " + end.why()));
    } else if (end.failure() != null) {
      run.set(was.with(ClusterOutcome.REFUSED, Failures.rootMessage(end.failure())));
    } else if (end.result().plan().steps().isEmpty()) {
      run.set(was.with(ClusterOutcome.ON_TARGET, "already on " + run.request.targetVersion()));
    } else {
      run.set(
          was.with(
              ClusterOutcome.PENDING,
              "plan: "
                  + end.result().plan().steps().stream()
                      .map(LadderStep::label)
                      .collect(Collectors.joining(", "))));
    }
  }

  /** Canaries first (smallest, then by name), then a wave per wave-label value, in its order. */
  private static void plan(FleetRun run) {
    Map<String, FleetCluster> byName = new LinkedHashMap<>();
    run.selected.forEach(c -> byName.put(c.cluster(), c));
    List<FleetCluster> pending =
        run.inState(ClusterOutcome.PENDING).stream()
            .map(byName::get)
            .sorted(
                Comparator.comparing((FleetCluster c) -> rank(run, c))
                    .thenComparing(FleetCluster::cluster))
            .toList();
    int canaries = Math.min(run.request.canaries(), pending.size());
    if (canaries > 0)
      addWave(
          run, "canary", pending.subList(0, canaries).stream().map(FleetCluster::cluster).toList());
    Map<String, List<String>> byValue = new LinkedHashMap<>();
    for (FleetCluster c : pending.subList(canaries, pending.size())) {
      String value =
          run.request.waveLabel().isEmpty()
              ? "rest"
              : c.labels().getOrDefault(run.request.waveLabel(), "unlabelled");
      byValue.computeIfAbsent(value, v -> new ArrayList<>()).add(c.cluster());
    }
    byValue.forEach((value, clusters) -> addWave(run, value, clusters));
    run.progress.message(
        "waves: "
            + run.waves.stream()
                .map(w -> w.name() + " " + w.clusters())
                .collect(Collectors.joining(", then ")));
  }

  /**
   * Where a cluster's wave-label value stands in the wave order; unnamed values after, unlabelled
   * last.
   */
  private static String rank(FleetRun run, FleetCluster c) {
    String value = c.labels().get(run.request.waveLabel());
    int at = value == null ? -1 : run.request.waveOrder().indexOf(value);
    if (value == null) return "2";
    return at >= 0 ? "0" + String.format("%04d", at) : "1" + value;
  }

  private static void addWave(FleetRun run, String name, List<String> clusters) {
    run.waves.add(new FleetWave(name, clusters, run.request.concurrency()));
    for (String c : clusters) run.set(run.outcome(c).inWave(name));
  }

  private static void done(FleetRun run) {
    List<String> failed = run.inState(ClusterOutcome.FAILED);
    String summary =
        "upgraded %s; failed %s; not started %s; refused %s; busy %s; already on target %s"
            .formatted(
                run.inState(ClusterOutcome.UPGRADED),
                failed,
                run.inState(ClusterOutcome.NOT_STARTED),
                run.inState(ClusterOutcome.REFUSED),
                run.inState(ClusterOutcome.BUSY),
                run.inState(ClusterOutcome.ON_TARGET));
    run.progress.message(summary);
    if (!run.halted.isEmpty()) {
      throw FailureType.FleetHalted.nonRetryable(
          ("fleet %s halted: %s. %s. Each failed cluster's own runbook (workflow change-<cluster>)"
                  + " says how it was left; fix the cause, then start the fleet again: clusters on"
                  + " %s are skipped. Failures: %s")
              .formatted(
                  run.fleet(),
                  run.halted,
                  summary,
                  run.request.targetVersion(),
                  failed.stream()
                      .map(c -> c + ": " + run.outcome(c).detail())
                      .collect(Collectors.joining(" | "))));
    }
    run.wave = "";
    Workflow.getLogger(FleetPhases.class).info("fleet {}: {}", run.fleet(), summary);
  }
}
