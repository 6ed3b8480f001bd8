package io.etcdrunbooks.workflows.fleet;

import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Runbook;
import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.util.List;

/**
 * Upgrades a fleet of clusters in waves (seed 003): every selected cluster is read first (a dry run
 * of its upgrade: version, health, v2 data, flags), the clusters that would be refused or are busy
 * are listed and left alone, then a canary wave and waves by a label, each cluster an
 * UpgradeCluster child under its change id, at most {@code concurrency} at once. Once {@code
 * failureBudget} clusters failed nothing new starts. {@code pause} holds new starts and the running
 * clusters at their next member, {@code resume} lets them go on, cancel stops the fleet and its
 * clusters at their safe points.
 */
@WorkflowInterface
public interface FleetUpgradeWorkflow extends Runbook {

  String TYPE = "FleetUpgrade";

  List<FailureType> FAILURES = List.of(FailureType.FleetRefused, FailureType.FleetHalted);

  @WorkflowMethod(name = TYPE)
  FleetStatus upgrade(FleetUpgradeRequest request);

  /** Every cluster's state, the waves and the wave running now. */
  @QueryMethod
  FleetStatus fleetStatus();

  static String workflowId(String fleet) {
    return "fleet-upgrade-" + fleet;
  }
}
