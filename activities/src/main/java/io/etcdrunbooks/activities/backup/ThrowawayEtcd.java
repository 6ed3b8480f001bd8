package io.etcdrunbooks.activities.backup;

import io.etcdrunbooks.activities.support.Heartbeats;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A single etcd on the worker serving a restored data dir on 127.0.0.1 only, for a restore drill:
 * its pid kept beside the data dir so that a later attempt stops it should this worker die first,
 * stopped on {@link #close}.
 */
final class ThrowawayEtcd implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ThrowawayEtcd.class);
  static final String PID_FILE = "etcd.pid";
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);

  private final Process process;
  private final Path scratch;
  final String clientUrl;

  private ThrowawayEtcd(Process process, Path scratch, String clientUrl) {
    this.process = process;
    this.scratch = scratch;
    this.clientUrl = clientUrl;
  }

  /** A TCP port on 127.0.0.1 that nothing listens on now. */
  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  /**
   * Starts {@code etcd} of {@code binDir} on {@code scratch/data} (restored for member "drill" with
   * {@code peerUrl}); its output goes to {@code scratch/etcd.log}.
   */
  static ThrowawayEtcd start(Path binDir, Path scratch, int clientPort, String peerUrl)
      throws IOException {
    String clientUrl = "http://127.0.0.1:" + clientPort;
    ProcessBuilder builder =
        new ProcessBuilder(
            List.of(
                binDir.resolve("etcd").toString(),
                "--name",
                "drill",
                "--data-dir",
                scratch.resolve("data").toString(),
                "--listen-client-urls",
                clientUrl,
                "--advertise-client-urls",
                clientUrl,
                "--listen-peer-urls",
                peerUrl,
                "--initial-advertise-peer-urls",
                peerUrl));
    builder.environment().keySet().removeIf(k -> k.startsWith("ETCD"));
    builder.redirectErrorStream(true);
    builder.redirectOutput(scratch.resolve("etcd.log").toFile());
    Process process = builder.start();
    Files.writeString(scratch.resolve(PID_FILE), Long.toString(process.pid()));
    return new ThrowawayEtcd(process, scratch, clientUrl);
  }

  /**
   * Waits until {@code /health} answers true, heartbeating; fails naming the log's end when etcd
   * exits or {@code timeout} passes.
   */
  void awaitHealthy(Duration timeout) throws IOException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      if (!process.isAlive())
        throw new IOException(
            "the throwaway etcd exited (status " + process.exitValue() + "): " + logTail());
      if (healthy()) return;
      if (System.nanoTime() > deadline)
        throw new IOException(
            "the throwaway etcd did not answer healthy within "
                + timeout.toSeconds()
                + " s: "
                + logTail());
      Heartbeats.beat("starting the throwaway etcd on " + clientUrl);
      Heartbeats.pause(200);
    }
  }

  private boolean healthy() {
    try {
      HttpURLConnection c =
          (HttpURLConnection) URI.create(clientUrl + "/health").toURL().openConnection();
      c.setConnectTimeout(1000);
      c.setReadTimeout(2000);
      try {
        return c.getResponseCode() == 200
            && new String(c.getInputStream().readAllBytes(), StandardCharsets.UTF_8)
                .contains("\"health\":\"true\"");
      } finally {
        c.disconnect();
      }
    } catch (IOException e) {
      return false;
    }
  }

  String logTail() {
    try {
      String text = Files.readString(scratch.resolve("etcd.log"), StandardCharsets.UTF_8).strip();
      return text.length() <= 1500 ? text : "..." + text.substring(text.length() - 1500);
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  @Override
  public void close() {
    stop(process.toHandle());
  }

  /**
   * Stops the etcd whose pid an earlier attempt left in {@code scratch}, when it still runs on that
   * scratch directory (a reused pid is left alone). Returns whether one was running.
   */
  static boolean stopLeftover(Path scratch) throws IOException {
    Path pidFile = scratch.resolve(PID_FILE);
    if (!Files.exists(pidFile)) return false;
    Optional<ProcessHandle> handle =
        ProcessHandle.of(Long.parseLong(Files.readString(pidFile).strip()))
            .filter(
                p ->
                    p.info()
                        .arguments()
                        .map(args -> List.of(args).contains(scratch.resolve("data").toString()))
                        .orElse(false));
    handle.ifPresent(ThrowawayEtcd::stop);
    return handle.isPresent();
  }

  private static void stop(ProcessHandle process) {
    if (!process.isAlive()) return;
    process.destroy();
    try {
      process.onExit().get(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    } catch (ExecutionException | TimeoutException e) {
      log.warn("throwaway etcd {} did not stop on SIGTERM, killing it", process.pid());
      process.destroyForcibly();
    }
  }
}
