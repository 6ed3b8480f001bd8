package io.etcdrunbooks.workflows.testing;

import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.WorkflowReplayer;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerOptions;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * Replays a recorded history under the workflow id it ran with. A history exported as JSON does not
 * hold its id, and the replayer would otherwise make one up; the changing runbooks read their id
 * (they run only under the cluster's change id), so a history recorded since then replays only
 * under its own.
 */
public final class RecordedHistories {

  /** The same as {@link OldBranches}' replays. */
  static final long DEADLOCK_DETECTION_MILLIS = 30_000;

  private RecordedHistories() {}

  public static void replay(String resource, String workflowId, Class<?> workflowClass)
      throws Exception {
    replay(WorkflowExecutionHistory.fromJson(json(resource), workflowId), workflowClass);
  }

  /** A history recorded before the runbooks read their id: replayed under a made-up one. */
  public static void replayResource(String resource, Class<?> workflowClass) throws Exception {
    replay(WorkflowExecutionHistory.fromJson(json(resource)), workflowClass);
  }

  private static String json(String resource) throws java.io.IOException {
    try (InputStream in = RecordedHistories.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) throw new IllegalArgumentException("no resource " + resource);
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static void replay(WorkflowExecutionHistory history, Class<?> workflowClass)
      throws Exception {
    try (TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance()) {
      // a replay on a loaded CI machine may hold the workflow thread for over the default second
      // (PotentialDeadlockException while Temporal's classes were still being linked)
      Worker worker =
          env.newWorker(
              "replay",
              WorkerOptions.newBuilder()
                  .setDefaultDeadlockDetectionTimeout(DEADLOCK_DETECTION_MILLIS)
                  .build());
      worker.registerWorkflowImplementationTypes(workflowClass);
      WorkflowReplayer.replayWorkflowExecution(history, worker);
    }
  }
}
