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

  /**
   * The system property naming the directory of the product jar ({@code etcd-runbooks.jar}, its
   * {@code lib/} beside it), set by the worker module's real-etcd tests: workers start from it,
   * sharing the classes they load at start ({@link WorkerClassArchive}). Without it (the tools'
   * bench), from this JVM's class path.
   */
  public static final String PRODUCT_DIR_PROPERTY = "etcd-runbooks.product-dir";

  private static Process start(
      Path inventory, String temporalAddress, String taskQueue, Path log, List<String> settings)
      throws IOException {
    List<String> command = new ArrayList<>(jvm());
    var archive = WorkerClassArchive.ofProductDir(System.getProperty(PRODUCT_DIR_PROPERTY));
    if (archive.isPresent()) {
      command.addAll(archive.get().options(inventory, temporalAddress));
      command.addAll(List.of("-cp", archive.get().jar().toString()));
    } else {
      command.addAll(List.of("-cp", System.getProperty("java.class.path")));
    }
    command.addAll(settings);
    command.addAll(settings(inventory, temporalAddress, taskQueue));
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
  }

  /** The java command and its options, without a class path. */
  static List<String> jvm() {
    return List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        // a test's worker lives a minute or two: C2's compilations and the parallel
        // collector's threads cost it more CPU than they give back (14 -> 10 CPU-s per
        // worker in EnableTlsWorkerCrashTest), on a CI machine whose two cores run three tests
        "-XX:TieredStopAtLevel=1",
        "-XX:+UseSerialGC");
  }

  /** The worker's settings and the product's command that runs it. */
  static List<String> settings(Path inventory, String temporalAddress, String taskQueue) {
    return List.of(
        "-Drunbooks.inventory=" + inventory,
        "-Drunbooks.task-queue=" + taskQueue,
        "-Dtemporal.address=" + temporalAddress,
        // no Temporal Schedules: an hourly backup must not start in the middle of a test
        "-Drunbooks.schedules.enabled=false",
        // no temporal.sticky-execution: the worker tells the shared test server by itself and
        // turns sticky execution off (io.etcdrunbooks.worker.StickyExecution), as a user's
        // worker does
        "-Dmicronaut.server.port=" + Ports.free(), // its /health and /metrics
        // the product's command, not on this module's class path
        "io.etcdrunbooks.worker.Main",
        "run",
        "--roles=worker");
  }
}
