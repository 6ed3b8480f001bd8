package io.etcdrunbooks.testkit;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A worker as a JVM of its own on this machine's classpath, as in production, so that a test or the
 * bench can kill it with SIGKILL; its output goes to a log file.
 */
public final class WorkerProcess {

  private WorkerProcess() {}

  /**
   * A test that kills a worker in a wait waits this long
   * (runbooks.activities.wait-heartbeat-timeout-seconds), not the waits' own 20 s, for the next
   * worker to take the killed one's wait over.
   */
  public static final int KILLED_WORKER_HEARTBEAT_TIMEOUT_SECONDS = 5;

  /** A worker with the product's settings. */
  public static Process start(Path inventory, String temporalAddress, String taskQueue, Path log)
      throws IOException {
    return start(inventory, temporalAddress, taskQueue, log, List.of());
  }

  /**
   * A worker that will be killed: the heartbeat timeouts of its waits are at most {@link
   * #KILLED_WORKER_HEARTBEAT_TIMEOUT_SECONDS}.
   */
  public static Process startToBeKilled(
      Path inventory, String temporalAddress, String taskQueue, Path log) throws IOException {
    return start(
        inventory,
        temporalAddress,
        taskQueue,
        log,
        List.of(
            "-Drunbooks.activities.wait-heartbeat-timeout-seconds="
                + KILLED_WORKER_HEARTBEAT_TIMEOUT_SECONDS));
  }

  private static Process start(
      Path inventory, String temporalAddress, String taskQueue, Path log, List<String> settings)
      throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command = new ArrayList<>();
    command.addAll(
        List.of(
            java,
            // a test's worker lives a minute or two: C2's compilations and the parallel
            // collector's threads cost it more CPU than they give back (14 -> 10 CPU-s per
            // worker in EnableTlsWorkerCrashTest), on a CI machine whose two cores run three tests
            "-XX:TieredStopAtLevel=1",
            "-XX:+UseSerialGC",
            "-cp",
            System.getProperty("java.class.path"),
            "-Drunbooks.inventory=" + inventory,
            "-Drunbooks.task-queue=" + taskQueue,
            "-Dtemporal.address=" + temporalAddress,
            // no Temporal Schedules: an hourly backup must not start in the middle of a test
            "-Drunbooks.schedules.enabled=false",
            // no temporal.sticky-execution: the worker tells the shared test server by itself and
            // turns sticky execution off (io.etcdrunbooks.worker.StickyExecution), as a user's
            // worker does
            "-Dmicronaut.server.port=" + Ports.free())); // its /health and /metrics
    command.addAll(settings);
    // the product's command, not on this module's class path
    command.addAll(List.of("io.etcdrunbooks.worker.Main", "run", "--roles=worker"));
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
  }
}
