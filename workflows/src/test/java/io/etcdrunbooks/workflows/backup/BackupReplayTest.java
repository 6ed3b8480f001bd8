package io.etcdrunbooks.workflows.backup;

import io.etcdrunbooks.workflows.testing.RecordedHistories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Replays backups and backup schedules recorded in memory by BackupClusterControlFlowTest and
 * BackupScheduleControlFlowTest with the code before these runbooks were built from phases (see
 * HistoryExport), against today's code. A change that would break a running backup or schedule
 * fails here; guard it with Workflow.getVersion.
 */
class BackupReplayTest {

  /** requireApproval, then the backup, the off-site copy step and retention. */
  @Test
  void todaysCodeReplaysABackupThatWaitedForApproval() throws Exception {
    RecordedHistories.replay(
        "histories/backup-in-memory-approved.json",
        BackupClusterWorkflow.workflowId("c"),
        BackupClusterWorkflowImpl.class);
  }

  /**
   * Recorded with the code before the off-site copy (commit 49b08a2, which had no control-flow
   * test: its two activities answered in memory): the verified backup, then retention.
   */
  @Test
  void todaysCodeReplaysABackupTakenBeforeItWasCopiedOffSite() throws Exception {
    RecordedHistories.replay(
        "histories/backup-in-memory-kept.json",
        BackupClusterWorkflow.workflowId("c"),
        BackupClusterWorkflowImpl.class);
  }

  /**
   * A backup paused while its snapshot was taken and resumed before retention, recorded in memory
   * before the controls were kept in the memo (0f93d64): its signals replay without the memo.
   */
  @Test
  void todaysCodeReplaysABackupPausedBeforeTheControlsMemo() throws Exception {
    RecordedHistories.replay(
        "histories/backup-in-memory-paused-before-controls-memo.json",
        BackupClusterWorkflow.workflowId("c"),
        BackupClusterWorkflowImpl.class);
  }

  @ParameterizedTest
  @ValueSource(strings = {"three-backups", "one-failed", "inventory-interval"})
  void todaysCodeReplaysARecordedSchedule(String name) throws Exception {
    RecordedHistories.replay(
        "histories/backup-schedule-in-memory-" + name + ".json",
        BackupScheduleWorkflow.workflowId("c"),
        BackupScheduleWorkflowImpl.class);
  }
}
