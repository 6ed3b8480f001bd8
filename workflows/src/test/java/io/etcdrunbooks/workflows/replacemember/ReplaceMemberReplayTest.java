package io.etcdrunbooks.workflows.replacemember;

import io.etcdrunbooks.workflows.testing.RecordedHistories;
import io.temporal.testing.WorkflowReplayer;
import org.junit.jupiter.api.Test;

/**
 * Replays the history of a real member replacement (m2 of a 3-member 3.4.23 sandbox replaced by m4 on a new host,
 * learner path, three kube-apiserver stand-ins; recorded by the worker module's ReplaceMemberTest into
 * worker/target/recorded-replace-member-history.json) against today's workflow code. A change that would break running
 * replacements fails here; guard it with Workflow.getVersion and record a new history beside this one.
 */
class ReplaceMemberReplayTest {

  @Test
  void todaysCodeReplaysARecordedReplacementOnANewHost() throws Exception {
    WorkflowReplayer.replayWorkflowExecutionFromResource(
        "histories/replace-member-3.4.23-new-host.json", ReplaceMemberWorkflowImpl.class);
  }

  /** The same replacement recorded with the change-id-guard and host-access-preflight markers, under its id change-sandbox. */
  @Test
  void todaysCodeReplaysAReplacementRecordedWithTheIdAndHostChecks() throws Exception {
    RecordedHistories.replay("histories/replace-member-3.4.23-new-host-id-and-hosts-checked.json", "change-sandbox", ReplaceMemberWorkflowImpl.class);
  }
}
