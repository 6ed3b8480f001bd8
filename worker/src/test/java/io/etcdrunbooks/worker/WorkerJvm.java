package io.etcdrunbooks.worker;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A worker as its own JVM, as in production, so that a test can kill it with SIGKILL; its output
 * goes to a log file.
 */
final class WorkerJvm {

  private WorkerJvm() {}

  static Process start(Path inventory, String temporalAddress, String taskQueue, Path log)
      throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    return new ProcessBuilder(
            java,
            "-cp",
            System.getProperty("java.class.path"),
            "-Drunbooks.inventory=" + inventory,
            "-Drunbooks.task-queue=" + taskQueue,
            "-Dtemporal.address=" + temporalAddress,
            "-Dmicronaut.server.port=" + Ports.free(), // its /health and /metrics
            Main.class.getName(),
            "run",
            "--roles=worker")
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
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
}
