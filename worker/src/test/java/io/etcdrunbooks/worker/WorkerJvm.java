package io.etcdrunbooks.worker;

import io.etcdrunbooks.workflows.common.Progress;
import io.temporal.api.enums.v1.EventType;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * A worker as its own JVM, as in production, so that a test can kill it with SIGKILL; its output
 * goes to a log file.
 */
final class WorkerJvm {

  private WorkerJvm() {}

  static Process start(Path inventory, String temporalAddress, String taskQueue, Path log)
      throws IOException {
    return WorkerProcess.start(inventory, temporalAddress, taskQueue, log);
  }

  /** The last few thousand characters of a worker's log, for failure messages. */
  static String logTail(Path log) {
    try {
      String text = Files.readString(log);
      return text.substring(Math.max(0, text.length() - 6000));
    } catch (IOException e) {
      return "(unreadable: " + e + ")";
    }
  }

  /**
   * Polls a runbook's progress until {@code reached}, failing with the worker's log when the worker
   * dies or two minutes pass.
   */
  static void awaitProgress(
      Supplier<Progress> progressQuery,
      Process worker,
      Path log,
      Predicate<Progress> reached,
      String what)
      throws InterruptedException {
    Instant deadline = Instant.now().plus(Duration.ofMinutes(2));
    Progress progress = null;
    while (Instant.now().isBefore(deadline)) {
      if (!worker.isAlive()) {
        throw new AssertionError("the worker died; its log:\n" + logTail(log));
      }
      try {
        progress = progressQuery.get();
      } catch (WorkflowException notYetAnswered) {
        TimeUnit.MILLISECONDS.sleep(200);
        continue; // the worker JVM is still starting
      }
      if (progress != null && reached.test(progress)) return;
      TimeUnit.MILLISECONDS.sleep(100);
    }
    throw new AssertionError(
        "the runbook did not get " + what + "; progress " + progress + "; log:\n" + logTail(log));
  }

  /** How many times the runbook scheduled an activity of this type (retries not counted). */
  static long activityCount(WorkflowClient client, String workflowId, String activityType) {
    return client.fetchHistory(workflowId).getEvents().stream()
        .filter(e -> e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)
        .filter(
            e ->
                e.getActivityTaskScheduledEventAttributes()
                    .getActivityType()
                    .getName()
                    .equals(activityType))
        .count();
  }

  /** How often {@code needle} occurs in {@code text} (an etcd log's starts on a version, say). */
  static int count(String text, String needle) {
    int n = 0;
    for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) n++;
    return n;
  }

  /** A free port on 127.0.0.1 for an embedded Temporal. */
  static int freePort() throws java.io.IOException {
    try (java.net.ServerSocket s =
        new java.net.ServerSocket(0, 0, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
