package io.etcdrunbooks.workflows.testing;

import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.testing.WorkflowReplayer;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * Replays a recorded history under the workflow id it ran with. A history exported as JSON does not
 * hold its id, and the replayer would otherwise make one up; the changing runbooks read their id
 * (they run only under the cluster's change id), so a history recorded since then replays only
 * under its own.
 */
public final class RecordedHistories {

  private RecordedHistories() {}

  public static void replay(String resource, String workflowId, Class<?> workflowClass)
      throws Exception {
    String json;
    try (InputStream in = RecordedHistories.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) throw new IllegalArgumentException("no resource " + resource);
      json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    WorkflowReplayer.replayWorkflowExecution(
        WorkflowExecutionHistory.fromJson(json, workflowId), workflowClass);
  }
}
