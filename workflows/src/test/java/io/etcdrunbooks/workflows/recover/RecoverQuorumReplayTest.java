package io.etcdrunbooks.workflows.recover;

import io.etcdrunbooks.workflows.common.RunbookIds;
import io.etcdrunbooks.workflows.testing.RecordedHistories;
import org.junit.jupiter.api.Test;

/**
 * Replays a RecoverQuorum run recorded on a real 3.5.30 cluster that lost two of three members
 * (RecoverQuorumTest, into worker/target/recorded-recover-quorum-history.json) against today's
 * workflow code. A change that breaks it needs Workflow.getVersion.
 */
class RecoverQuorumReplayTest {

  @Test
  void todaysCodeReplaysARecordedRecoveryFromOneSurvivor() throws Exception {
    RecordedHistories.replay(
        "histories/recover-quorum-3.5.30.json",
        RunbookIds.changing("sandbox"),
        RecoverQuorumWorkflowImpl.class);
  }

  /**
   * Recorded with the lost members fenced, the apiservers back before JOIN and each new host's
   * place checked (the same test, 2026-11-26).
   */
  @Test
  void todaysCodeReplaysARecordedRecoveryThatFencedTheLostMembers() throws Exception {
    RecordedHistories.replay(
        "histories/recover-quorum-3.5.30-fenced.json",
        RunbookIds.changing("sandbox"),
        RecoverQuorumWorkflowImpl.class);
  }

  /**
   * Recorded with the survivor rebuilt from its data dir copy with its revision raised instead of
   * --force-new-cluster (the same test, 2026-11-26).
   */
  @Test
  void todaysCodeReplaysARecordedRecoveryThatRaisedTheRevision() throws Exception {
    RecordedHistories.replay(
        "histories/recover-quorum-3.5.30-revision-raised.json",
        RunbookIds.changing("sandbox"),
        RecoverQuorumWorkflowImpl.class);
  }
}
