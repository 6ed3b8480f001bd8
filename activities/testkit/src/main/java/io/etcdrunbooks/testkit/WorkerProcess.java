package io.etcdrunbooks.testkit;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A worker as a JVM of its own on this machine's classpath, as in production, so that a test or the
 * bench can kill it with SIGKILL; its output goes to a log file.
 */
public final class WorkerProcess {

  private WorkerProcess() {}

  public static Process start(Path inventory, String temporalAddress, String taskQueue, Path log)
      throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    return new ProcessBuilder(
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
            "-Dmicronaut.server.port=" + Ports.free(), // its /health and /metrics
            "io.etcdrunbooks.worker.Main", // the product's command, not on this module's class path
            "run",
            "--roles=worker")
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
  }
}
