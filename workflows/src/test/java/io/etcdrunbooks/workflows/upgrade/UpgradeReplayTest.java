package io.etcdrunbooks.workflows.upgrade;

import io.temporal.testing.WorkflowReplayer;
import org.junit.jupiter.api.Test;

/**
 * Replays the history of a real upgrade (3.3.25 -> 3.5.30 of a 3-member sandbox, recorded by the worker module's
 * UpgradeClusterTest into worker/target/recorded-upgrade-history.json) against today's workflow code. A change that
 * would break running upgrades fails here; guard it with Workflow.getVersion and record a new history beside this one.
 */
class UpgradeReplayTest {

  @Test
  void todaysCodeReplaysARecordedFullLadderUpgrade() throws Exception {
    WorkflowReplayer.replayWorkflowExecutionFromResource(
        "histories/upgrade-3.3.25-to-3.5.30.json", UpgradeClusterWorkflowImpl.class);
  }
}
