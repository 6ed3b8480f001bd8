package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.testkit.EmbeddedTemporal;
import io.etcdrunbooks.testkit.Ports;
import io.etcdrunbooks.testkit.TemporalDevServer;
import io.etcdrunbooks.testkit.TemporalServer;
import io.etcdrunbooks.testkit.WorkerProcess;
import io.etcdrunbooks.workflows.common.CompletedStep;
import io.etcdrunbooks.workflows.common.Progress;
import io.temporal.api.enums.v1.EventType;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowException;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The world of a test that kills the worker: Temporal in this JVM (the embedded server) or the real
 * server as a process of its own ({@link #withWorkerOnRealServer}, which can be killed too), a
 * client of it, and workers as their own JVMs, as production runs them, each logging to {@code
 * worker-N.log} in the test's directory. A test starts a runbook, waits for the moment it wants
 * ({@link #awaitProgress}, {@link #await}), kills the worker with SIGKILL ({@link #killWorker}),
 * starts the next one and reads the result ({@link #result}); every failure message carries the log
 * of the worker concerned. Its workers' waits have heartbeat timeouts of at most {@link
 * WorkerProcess#KILLED_WORKER_HEARTBEAT_TIMEOUT_SECONDS}, so the next worker takes a killed one's
 * wait over after that, not after the waits' own 20 s. The machines tests use it with one worker
 * and the product's settings, as production runs it ({@link #withShippedWorker}).
 */
final class WorkerCrashScenario implements AutoCloseable {

  private final Path dir;
  private final Path inventory;
  private final String taskQueue;
  private final TemporalServer temporal;
  private final WorkflowServiceStubs stubs;
  private final WorkflowClient client;
  private final List<Process> workers = new ArrayList<>();
  private boolean shipped;

  private WorkerCrashScenario(Path dir, Path inventory, String taskQueue, TemporalServer temporal) {
    this.dir = dir;
    this.inventory = inventory;
    this.taskQueue = taskQueue;
    this.temporal = temporal;
    this.stubs =
        WorkflowServiceStubs.newServiceStubs(
            WorkflowServiceStubsOptions.newBuilder().setTarget(temporal.address()).build());
    this.client = WorkflowClient.newInstance(stubs);
  }

  /** Temporal and a client; no worker yet. */
  static WorkerCrashScenario start(Path dir, Path inventory, String taskQueue) throws IOException {
    return new WorkerCrashScenario(dir, inventory, taskQueue, EmbeddedTemporal.start(Ports.free()));
  }

  /**
   * The real Temporal server ({@code temporal server start-dev}, its SQLite file in {@code
   * dir/temporal}) and a client, with the first worker started.
   */
  static WorkerCrashScenario withWorkerOnRealServer(Path dir, Path inventory, String taskQueue)
      throws IOException {
    WorkerCrashScenario scenario =
        new WorkerCrashScenario(
            dir, inventory, taskQueue, TemporalDevServer.start(dir.resolve("temporal")));
    scenario.startWorker();
    return scenario;
  }

  /** As {@link #start}, with the first worker started. */
  static WorkerCrashScenario withWorker(Path dir, Path inventory, String taskQueue)
      throws IOException {
    WorkerCrashScenario scenario = start(dir, inventory, taskQueue);
    scenario.startWorker();
    return scenario;
  }

  /** As {@link #withWorker}, the worker with the product's settings: it is not to be killed. */
  static WorkerCrashScenario withShippedWorker(Path dir, Path inventory, String taskQueue)
      throws IOException {
    WorkerCrashScenario scenario = start(dir, inventory, taskQueue);
    scenario.shipped = true;
    scenario.startWorker();
    return scenario;
  }

  WorkflowClient client() {
    return client;
  }

  /** A runbook's stub under its workflow id, on the workers' task queue. */
  <T> T workflow(Class<T> type, String workflowId) {
    return client.newWorkflowStub(
        type,
        WorkflowOptions.newBuilder().setWorkflowId(workflowId).setTaskQueue(taskQueue).build());
  }

  /** Starts the next worker JVM (worker-1, worker-2, ...). */
  void startWorker() throws IOException {
    Path log = logFile(workers.size() + 1);
    workers.add(
        shipped
            ? WorkerProcess.start(inventory, temporal.address(), taskQueue, log)
            : WorkerProcess.startToBeKilled(inventory, temporal.address(), taskQueue, log));
  }

  /** SIGKILL to the running worker: no shutdown hook, no graceful stop; waits until it is gone. */
  void killWorker() throws InterruptedException {
    Process worker = current();
    worker.destroyForcibly();
    assertThat(worker.waitFor(30, TimeUnit.SECONDS)).as("%s gone", name()).isTrue();
  }

  /** SIGKILL to the real Temporal server; its database stays for {@link #restartServer}. */
  void killServer() {
    realServer().kill();
  }

  /** The real Temporal server started again on the same database and ports. */
  void restartServer() {
    realServer().restart();
  }

  private String serverLog() {
    return temporal instanceof TemporalDevServer server
        ? "\nTemporal server log:\n" + server.log()
        : "";
  }

  private TemporalDevServer realServer() {
    if (temporal instanceof TemporalDevServer server) return server;
    throw new IllegalStateException("the embedded server cannot be killed apart from this JVM");
  }

  /** Whether the running worker's process is still alive. */
  boolean workerAlive() {
    return current().isAlive();
  }

  /**
   * Polls a runbook's progress until {@code reached}, failing with the worker's log when it dies or
   * two minutes pass.
   */
  void awaitProgress(Supplier<Progress> progress, Predicate<Progress> reached, String what)
      throws InterruptedException {
    AtomicReference<Progress> last = new AtomicReference<>();
    poll(
        () -> {
          Progress now = progress.get();
          last.set(now);
          return Optional.ofNullable(now).filter(reached);
        },
        Duration.ofMinutes(2),
        () -> what + "; progress " + last.get());
  }

  /**
   * Polls {@code found} until it finds something, failing with the worker's log when the worker
   * dies or {@code within} passes. A query no worker answers yet (the JVM still starts) counts as
   * nothing found.
   */
  <R> R await(Supplier<Optional<R>> found, Duration within, String what)
      throws InterruptedException {
    return poll(found, within, () -> what);
  }

  private <R> R poll(Supplier<Optional<R>> found, Duration within, Supplier<String> what)
      throws InterruptedException {
    Instant deadline = Instant.now().plus(within);
    while (Instant.now().isBefore(deadline)) {
      if (!workerAlive()) {
        throw new AssertionError(
            name() + " died waiting for " + what.get() + "; its log:\n" + log());
      }
      try {
        Optional<R> value = found.get();
        if (value.isPresent()) return value.get();
      } catch (WorkflowException notYetAnswered) {
        // the worker JVM is still starting: nobody answers queries yet
      }
      TimeUnit.MILLISECONDS.sleep(100);
    }
    throw new AssertionError(
        "no " + what.get() + " within " + within + "; " + name() + " log:\n" + log() + serverLog());
  }

  /**
   * The runbook's result, or an assertion naming what it still waits for (pending activities, last
   * events) with the running worker's log.
   */
  <R> R result(Object workflow, Class<R> type, Duration within) {
    WorkflowStub stub = WorkflowStub.fromTyped(workflow);
    try {
      return stub.getResult(within.toMillis(), TimeUnit.MILLISECONDS, type);
    } catch (TimeoutException e) {
      String id = stub.getExecution().getWorkflowId();
      throw new AssertionError(
          "the runbook did not finish on "
              + name()
              + " within "
              + within
              + "; pending: "
              + stub.describe().getRawDescription().getPendingActivitiesList()
              + "\nlast events: "
              + lastEvents(id)
              + "\n"
              + name()
              + " log:\n"
              + log()
              + serverLog());
    }
  }

  /** How many times the runbook scheduled an activity of this type (retries not counted). */
  long activityCount(String workflowId, String activityType) {
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

  /** The running worker's log, all of it. */
  String fullLog() throws IOException {
    return Files.readString(logFile(workers.size()));
  }

  /** The last few thousand characters of the running worker's log, for failure messages. */
  String log() {
    return logTail(logFile(workers.size()));
  }

  /** How often {@code needle} occurs in {@code text} (an etcd log's starts on a version, say). */
  static int count(String text, String needle) {
    int n = 0;
    for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) n++;
    return n;
  }

  /** The first member an upgrade's progress shows ready on the version. */
  static Optional<String> firstMemberReadyOn(String version, Progress progress) {
    return Optional.ofNullable(progress).map(Progress::completed).orElse(List.of()).stream()
        .filter(s -> s.name().endsWith(": ready on " + version) && s.outcome().equals("done"))
        .map(CompletedStep::name)
        .map(n -> n.substring(0, n.indexOf(':')))
        .findFirst();
  }

  static String logTail(Path log) {
    try {
      String text = Files.readString(log);
      return text.substring(Math.max(0, text.length() - 6000));
    } catch (IOException e) {
      return "(unreadable: " + e + ")";
    }
  }

  @Override
  public void close() {
    workers.forEach(Process::destroyForcibly);
    stubs.shutdownNow();
    temporal.close();
  }

  private Process current() {
    if (workers.isEmpty()) throw new IllegalStateException("no worker started");
    return workers.get(workers.size() - 1);
  }

  private String name() {
    return "worker-" + workers.size();
  }

  private Path logFile(int n) {
    return dir.resolve("worker-" + n + ".log");
  }

  private String lastEvents(String workflowId) {
    var events = client.fetchHistory(workflowId).getEvents();
    return events.subList(Math.max(0, events.size() - 8), events.size()).stream()
        .map(e -> e.getEventId() + " " + e.getEventType())
        .toList()
        .toString();
  }
}
