package io.etcdrunbooks.workflows.fleet;

import io.etcdrunbooks.workflows.testing.RecordedHistories;
import org.junit.jupiter.api.Test;

/**
 * Replays fleet upgrades recorded in memory (see HistoryExport) against today's code: the fleet
 * "prod" of FleetWaveGateTest (c1 the canary, then c2, then c3, each upgraded by a stand-in
 * UpgradeCluster child that sleeps ten minutes). A change that would break a fleet in flight fails
 * here; guard it with Workflow.getVersion.
 */
class FleetReplayTest {

  /** Recorded with the code before fleet-wave-gate (commit f1f955b): no bake, no gate. */
  @Test
  void todaysCodeReplaysAFleetUpgradedBeforeWavesWereGated() throws Exception {
    replay("fleet-in-memory-three-waves.json");
  }

  /**
   * Recorded with the code before fleet-node-gate (commit db4a695): each wave baked 30 minutes,
   * then its kube-apiservers answered ready; no node was watched.
   */
  @Test
  void todaysCodeReplaysAFleetBakedBeforeNodesWereWatched() throws Exception {
    replay("fleet-in-memory-three-waves-baked.json");
  }

  private static void replay(String history) throws Exception {
    RecordedHistories.replay(
        "histories/" + history,
        FleetUpgradeWorkflow.workflowId("prod"),
        FleetUpgradeWorkflowImpl.class);
  }
}
