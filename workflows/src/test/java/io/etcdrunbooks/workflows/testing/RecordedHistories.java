package io.etcdrunbooks.workflows.testing;

import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.RunbookPayloads;
import io.temporal.api.failure.v1.Failure;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.common.interceptors.WorkerInterceptor;
import io.temporal.common.interceptors.WorkerInterceptorBase;
import io.temporal.common.interceptors.WorkflowInboundCallsInterceptor;
import io.temporal.common.interceptors.WorkflowInboundCallsInterceptorBase;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.WorkflowReplayer;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactoryOptions;
import io.temporal.worker.WorkerOptions;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicReference;

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

  /**
   * The failure type a recorded run ended with and the one its replay on today's code ends with (""
   * for a run that did not fail).
   */
  public record Endings(String recorded, String replayed) {}

  /**
   * Replays a recorded history and says how it ended and how the replay ends. A change whose old
   * and new branch issue the same commands and differ only in how the run fails replays either way:
   * only the ending tells the branches apart.
   */
  public static Endings replayEndings(String resource, String workflowId, Class<?> workflowClass)
      throws Exception {
    WorkflowExecutionHistory history =
        WorkflowExecutionHistory.fromJson(json(resource), workflowId);
    AtomicReference<String> replayed = new AtomicReference<>("");
    replay(history, workflowClass, new FailureTypeObserver(replayed));
    return new Endings(failureType(history.getLastEvent()), replayed.get());
  }

  private static String failureType(HistoryEvent last) {
    if (!last.hasWorkflowExecutionFailedEventAttributes()) return "";
    String type = "";
    for (Failure f = last.getWorkflowExecutionFailedEventAttributes().getFailure();
        f != null;
        f = f.hasCause() ? f.getCause() : null) {
      if (f.hasApplicationFailureInfo()) type = f.getApplicationFailureInfo().getType();
    }
    return type;
  }

  private static String json(String resource) throws java.io.IOException {
    try (InputStream in = RecordedHistories.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) throw new IllegalArgumentException("no resource " + resource);
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static void replay(
      WorkflowExecutionHistory history, Class<?> workflowClass, WorkerInterceptor... interceptors)
      throws Exception {
    try (TestWorkflowEnvironment env =
        TestWorkflowEnvironment.newInstance(
            TestEnvironmentOptions.newBuilder()
                .setWorkflowClientOptions(RunbookPayloads.clientOptions().build())
                .setWorkerFactoryOptions(
                    WorkerFactoryOptions.newBuilder().setWorkerInterceptors(interceptors).build())
                .build())) {
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

  /** Keeps the type of the failure the workflow method ends with. */
  private static final class FailureTypeObserver extends WorkerInterceptorBase {
    private final AtomicReference<String> type;

    FailureTypeObserver(AtomicReference<String> type) {
      this.type = type;
    }

    @Override
    public WorkflowInboundCallsInterceptor interceptWorkflow(WorkflowInboundCallsInterceptor next) {
      return new WorkflowInboundCallsInterceptorBase(next) {
        @Override
        public WorkflowOutput execute(WorkflowInput input) {
          try {
            return super.execute(input);
          } catch (RuntimeException e) {
            type.set(Failures.rootType(e));
            throw e;
          }
        }
      };
    }
  }
}
