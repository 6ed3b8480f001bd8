package io.etcdrunbooks.workflows.rollback;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.workflows.testing.RecordedHistories;
import org.junit.jupiter.api.Test;

/**
 * Replays rollbacks recorded with the code from before the rollback was built from phases (commit
 * b0dec44), against today's code. They ran on the in-memory cluster of RollbackControlFlowTest
 * (FakeCluster, FakeRestoreHosts) under the id change-c: members m1 and m3 of three on 3.5.16
 * switched back to 3.4.23; one member after an approve; every member on 3.5.16 with the cluster
 * version moved, restored through the RestoreCluster child, and the same as a dry run. A change
 * that would break rollbacks in flight fails here; guard it with Workflow.getVersion.
 */
class RollbackReplayTest {

  @Test
  void todaysCodeReplaysARollbackMemberByMember() throws Exception {
    replay("rollback-in-memory-member-by-member.json");
  }

  @Test
  void todaysCodeReplaysARollbackThatWaitedForApproval() throws Exception {
    replay("rollback-in-memory-approved.json");
  }

  @Test
  void todaysCodeReplaysARollbackThroughARestoreChild() throws Exception {
    replay("rollback-in-memory-by-restore.json");
  }

  @Test
  void todaysCodeReplaysADryRunThroughARestoreChild() throws Exception {
    replay("rollback-in-memory-by-restore-dry-run.json");
  }

  /**
   * Recorded with the code before the change id (commit 0f93d64, which had no control-flow test:
   * discover and the binary source answered by a proxy, the RestoreCluster child a stand-in): three
   * members on 3.5.16, cluster version 3.5.0, back to 3.4.23 with acknowledgeDataLoss. The rollback
   * ran as rollback-c and started its child as restore-c.
   */
  @Test
  void todaysCodeReplaysARestoreChildStartedAsRestoreOfTheCluster() throws Exception {
    RecordedHistories.replay(
        "histories/rollback-in-memory-by-restore-child-restore-c.json",
        "rollback-c",
        RollbackClusterWorkflowImpl.class);
  }

  /**
   * Replayed under another id, the same history meets the change-id check, which the recorded run
   * passed.
   */
  @Test
  void aRecordedRollbackUnderAnotherIdIsNotReplayed() {
    assertThatThrownBy(
            () ->
                RecordedHistories.replay(
                    "histories/rollback-in-memory-member-by-member.json",
                    "web-ui-1",
                    RollbackClusterWorkflowImpl.class))
        .hasMessageContaining("NonDeterministicException");
  }

  private static void replay(String history) throws Exception {
    RecordedHistories.replay("histories/" + history, "change-c", RollbackClusterWorkflowImpl.class);
  }
}
