package io.etcdrunbooks.workflows.fleet;

import io.etcdrunbooks.workflows.activities.InventoryActivities.FleetCluster;
import io.etcdrunbooks.workflows.common.ApprovalGate;
import io.etcdrunbooks.workflows.common.ProgressTracker;
import io.etcdrunbooks.workflows.phases.Activities;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What one fleet upgrade has found and done so far; each phase reads it and adds to it. */
public final class FleetRun {

  final Activities activities;
  final ProgressTracker progress;
  final FleetUpgradeRequest request;

  /** Each wave after the first is approved on its own, when the request asks for it. */
  final ApprovalGate approval;

  final Runnable needApprovalAgain;

  List<FleetCluster> selected = List.of();
  final Map<String, ClusterOutcome> outcomes = new LinkedHashMap<>();
  final List<FleetWave> waves = new ArrayList<>();
  String wave = "";
  String halted = "";
  private FleetMetrics metrics;

  FleetRun(
      Activities activities,
      ProgressTracker progress,
      FleetUpgradeRequest request,
      ApprovalGate approval,
      Runnable needApprovalAgain) {
    this.activities = activities;
    this.progress = progress;
    this.request = request;
    this.approval = approval;
    this.needApprovalAgain = needApprovalAgain;
  }

  String fleet() {
    return request.fleet();
  }

  void set(ClusterOutcome outcome) {
    outcomes.put(outcome.cluster(), outcome);
    if (metrics == null) metrics = new FleetMetrics(fleet());
    metrics.update(outcomes.values());
  }

  ClusterOutcome outcome(String cluster) {
    return outcomes.get(cluster);
  }

  List<String> inState(String state) {
    return outcomes.values().stream()
        .filter(o -> o.state().equals(state))
        .map(ClusterOutcome::cluster)
        .toList();
  }

  FleetStatus status() {
    return new FleetStatus(
        fleet(),
        request.targetVersion(),
        List.copyOf(waves),
        wave,
        List.copyOf(outcomes.values()),
        halted);
  }
}
