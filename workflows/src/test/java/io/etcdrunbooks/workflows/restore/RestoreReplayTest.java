package io.etcdrunbooks.workflows.restore;

import io.etcdrunbooks.workflows.testing.RecordedHistories;
import org.junit.jupiter.api.Test;

/**
 * Replays the history of a real restore (two of three 3.5.16 members destroyed, the latest backup
 * restored, three kube-apiserver stand-ins stopped and started; recorded by the worker module's
 * RestoreClusterTest into worker/target/recorded-restore-history.json) against today's workflow
 * code.
 */
class RestoreReplayTest {

  @Test
  void todaysCodeReplaysARecordedRestore() throws Exception {
    RecordedHistories.replayResource(
        "histories/restore-3.5.16-two-of-three-destroyed.json", RestoreClusterWorkflowImpl.class);
  }

  /**
   * The same restore recorded with the change-id-guard and host-access-preflight markers, under its
   * id change-sandbox.
   */
  @Test
  void todaysCodeReplaysARestoreRecordedWithTheIdAndHostChecks() throws Exception {
    RecordedHistories.replay(
        "histories/restore-3.5.16-two-of-three-destroyed-id-and-hosts-checked.json",
        "change-sandbox",
        RestoreClusterWorkflowImpl.class);
  }
}
