package io.etcdrunbooks.workflows.replacemember;

import io.etcdrunbooks.workflows.testing.RecordedHistories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Replays the history of a real member replacement (m2 of a 3-member 3.4.23 sandbox replaced by m4
 * on a new host, learner path, three kube-apiserver stand-ins; recorded by the worker module's
 * ReplaceMemberTest into worker/target/recorded-replace-member-history.json) against today's
 * workflow code. A change that would break running replacements fails here; guard it with
 * Workflow.getVersion and record a new history beside this one.
 */
class ReplaceMemberReplayTest {

  @Test
  void todaysCodeReplaysARecordedReplacementOnANewHost() throws Exception {
    RecordedHistories.replayResource(
        "histories/replace-member-3.4.23-new-host.json", ReplaceMemberWorkflowImpl.class);
  }

  /**
   * The same replacement recorded with the change-id-guard and host-access-preflight markers, under
   * its id change-sandbox.
   */
  @Test
  void todaysCodeReplaysAReplacementRecordedWithTheIdAndHostChecks() throws Exception {
    RecordedHistories.replay(
        "histories/replace-member-3.4.23-new-host-id-and-hosts-checked.json",
        "change-sandbox",
        ReplaceMemberWorkflowImpl.class);
  }

  /**
   * Replacements that ended in every other way, recorded in memory by ReplaceMemberControlFlowTest
   * with the code before the runbook was built from phases (see HistoryExport): the phases, the
   * saga and the shared apiserver rollout call the same activities in the same order as that code
   * did.
   */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "join-failed",
        "second-apiserver-unhealthy",
        "approved",
        "alert-resolved",
        "cancelled-awaiting-approval",
        "dry-run",
        "postflight-failed",
        "refused"
      })
  void todaysCodeReplaysAnInMemoryReplacementRecordedBeforeThePhases(String name) throws Exception {
    RecordedHistories.replay(
        "histories/replace-member-in-memory-" + name + ".json",
        "change-c",
        ReplaceMemberWorkflowImpl.class);
  }
}
