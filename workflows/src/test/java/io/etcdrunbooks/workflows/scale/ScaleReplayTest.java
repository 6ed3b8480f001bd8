package io.etcdrunbooks.workflows.scale;

import io.etcdrunbooks.workflows.common.RunbookIds;
import io.etcdrunbooks.workflows.testing.RecordedHistories;
import org.junit.jupiter.api.Test;

/**
 * Replays ScaleCluster runs recorded on a real 3.5.30 cluster (ScaleClusterTest, into
 * worker/target/recorded-scale-*-history.json) against today's workflow code: 3 -> 5 with learners
 * and 5 -> 3 with apiservers first. A change that breaks them needs Workflow.getVersion.
 */
class ScaleReplayTest {

  @Test
  void todaysCodeReplaysARecordedGrowthFrom3To5() throws Exception {
    RecordedHistories.replay(
        "histories/scale-grow-3.5.30.json",
        RunbookIds.changing("sandbox"),
        ScaleClusterWorkflowImpl.class);
  }

  @Test
  void todaysCodeReplaysARecordedShrinkFrom5To3() throws Exception {
    RecordedHistories.replay(
        "histories/scale-shrink-3.5.30.json",
        RunbookIds.changing("sandbox"),
        ScaleClusterWorkflowImpl.class);
  }
}
