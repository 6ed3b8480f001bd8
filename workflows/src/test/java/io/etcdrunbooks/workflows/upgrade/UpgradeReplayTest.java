package io.etcdrunbooks.workflows.upgrade;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.workflows.testing.RecordedHistories;
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

  /** The same ladder recorded with the change-id-guard and host-access-preflight markers, under its id change-sandbox. */
  @Test
  void todaysCodeReplaysAFullLadderUpgradeRecordedWithTheIdAndHostChecks() throws Exception {
    RecordedHistories.replay("histories/upgrade-3.3.25-to-3.5.30-id-and-hosts-checked.json", "change-sandbox", UpgradeClusterWorkflowImpl.class);
  }

  /** Replayed under another id, the same history meets the change-id check, which the recorded run passed. */
  @Test
  void theRecordedUpgradeUnderAnotherIdIsNotReplayed() {
    assertThatThrownBy(() -> RecordedHistories.replay("histories/upgrade-3.3.25-to-3.5.30-id-and-hosts-checked.json",
        "web-ui-1", UpgradeClusterWorkflowImpl.class)).hasMessageContaining("NonDeterministicException");
  }

  /** requireApproval, a viewer's refused and an operator's accepted approve, the controls memo (RunbookControlTest). */
  @Test
  void todaysCodeReplaysAnUpgradeThatWaitedForApproval() throws Exception {
    WorkflowReplayer.replayWorkflowExecutionFromResource(
        "histories/upgrade-3.4.23-to-3.5.16-approved.json", UpgradeClusterWorkflowImpl.class);
  }

  /** A cancel request while a member was being switched: the member finished, then the runbook stopped (RunbookControlTest). */
  @Test
  void todaysCodeReplaysAnUpgradeCancelledInTheMiddleOfAMember() throws Exception {
    WorkflowReplayer.replayWorkflowExecutionFromResource(
        "histories/upgrade-3.5.16-to-3.5.30-cancelled-mid-member.json", UpgradeClusterWorkflowImpl.class);
  }
}
