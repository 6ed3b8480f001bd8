package io.etcdrunbooks.workflows.maintenance;

import io.etcdrunbooks.workflows.common.RunbookIds;
import io.etcdrunbooks.workflows.testing.RecordedHistories;
import org.junit.jupiter.api.Test;

/**
 * Replays Maintenance runs against today's workflow code: one recorded on a real 3.5.30 cluster out
 * of space (MaintenanceTest, into worker/target/recorded-maintenance-history.json), and one
 * recorded in memory (MaintenanceControlFlowTest's cluster, see HistoryExport) with the code before
 * compaction-window (commit f11aca8): a healthy cluster compacted to its revision and defragmented,
 * kube-apiserver's compaction never asked. A change that breaks them needs Workflow.getVersion.
 */
class MaintenanceReplayTest {

  @Test
  void todaysCodeReplaysARecordedMaintenanceOfAClusterOutOfSpace() throws Exception {
    RecordedHistories.replay(
        "histories/maintenance-nospace-3.5.30.json",
        RunbookIds.changing("sandbox"),
        MaintenanceWorkflowImpl.class);
  }

  @Test
  void todaysCodeReplaysACompactionRecordedBeforeTheApiServerWindowWasChecked() throws Exception {
    RecordedHistories.replay(
        "histories/maintenance-in-memory-compacted.json",
        RunbookIds.changing("c"),
        MaintenanceWorkflowImpl.class);
  }
}
