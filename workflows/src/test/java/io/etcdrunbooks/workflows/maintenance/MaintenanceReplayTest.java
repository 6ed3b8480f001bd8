package io.etcdrunbooks.workflows.maintenance;

import io.etcdrunbooks.workflows.common.RunbookIds;
import io.etcdrunbooks.workflows.testing.RecordedHistories;
import org.junit.jupiter.api.Test;

/**
 * Replays a Maintenance run recorded on a real 3.5.30 cluster out of space (MaintenanceTest, into
 * worker/target/recorded-maintenance-history.json) against today's workflow code. A change that
 * breaks it needs Workflow.getVersion.
 */
class MaintenanceReplayTest {

  @Test
  void todaysCodeReplaysARecordedMaintenanceOfAClusterOutOfSpace() throws Exception {
    RecordedHistories.replay(
        "histories/maintenance-nospace-3.5.30.json",
        RunbookIds.changing("sandbox"),
        MaintenanceWorkflowImpl.class);
  }
}
