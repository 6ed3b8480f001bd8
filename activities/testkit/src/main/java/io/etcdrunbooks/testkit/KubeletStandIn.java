package io.etcdrunbooks.testkit;

import io.etcdrunbooks.activities.host.ManifestImage;
import io.etcdrunbooks.activities.release.ReleaseStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stands in for kubelet on one sandbox host, for etcd's static pod only. Every 200 ms it looks at
 * the manifest: while it is there, etcd of its image's version (binaries from the release store,
 * once the image is on the node or pulled from the sandbox's {@link ImageRegistryStandIn}) runs
 * with exactly the manifest's command, its output appended to the log file; when the manifest goes,
 * etcd gets SIGTERM; when the image or command changes, etcd is restarted. An etcd that exits is
 * started again after a growing pause, as kubelet's CrashLoopBackOff does. The pid goes to a pid
 * file so that the sandbox can find, kill and clean up the process.
 */
final class KubeletStandIn implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(KubeletStandIn.class);
  private static final long POLL_MILLIS = 200;
  private static final long TERMINATION_GRACE_SECONDS = 10;
  private static final long MAX_BACKOFF_MILLIS = 10_000;

  private final String member;
  private final Path manifest;
  private final Path logFile;
  private final Path pidFile;
  private final ReleaseStore releases;
  private final Predicate<String> pullImage;
  private final Consumer<String> onStop;
  private final Thread thread;
  private volatile boolean closed;

  private Process process;
  private String runningManifest;
  private int crashes;
  private long restartAtMillis;

  private KubeletStandIn(
      String member,
      Path manifest,
      Path logFile,
      Path pidFile,
      ReleaseStore releases,
      Predicate<String> pullImage,
      Consumer<String> onStop) {
    this.member = member;
    this.pullImage = pullImage;
    this.onStop = onStop;
    this.manifest = manifest;
    this.logFile = logFile;
    this.pidFile = pidFile;
    this.releases = releases;
    this.thread = new Thread(this::run, "kubelet-stand-in-" + member);
    thread.setDaemon(true);
  }

  /**
   * @param pullImage whether the node has the image or can pull it (kubelet's pull with
   *     imagePullPolicy IfNotPresent)
   * @param onStop told the member's name when a running pod is stopped
   */
  static KubeletStandIn start(
      String member,
      Path manifest,
      Path logFile,
      Path pidFile,
      ReleaseStore releases,
      Predicate<String> pullImage,
      Consumer<String> onStop) {
    KubeletStandIn kubelet =
        new KubeletStandIn(member, manifest, logFile, pidFile, releases, pullImage, onStop);
    kubelet.thread.start();
    return kubelet;
  }

  /** Stops watching and stops etcd, bounded. */
  @Override
  public void close() {
    closed = true;
    thread.interrupt();
    try {
      thread.join(TimeUnit.SECONDS.toMillis(TERMINATION_GRACE_SECONDS + 5));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void run() {
    try {
      while (!closed) {
        try {
          sync();
        } catch (RuntimeException e) {
          log.warn("kubelet stand-in of {}: {}", member, e.toString());
        }
        try {
          Thread.sleep(POLL_MILLIS);
        } catch (InterruptedException e) {
          break;
        }
      }
    } finally {
      Thread.interrupted(); // the stop below waits, so it must not see the interrupt that ended the
      // loop
      stopPod();
    }
  }

  private void sync() {
    String desired = readManifest();
    if (desired == null) {
      if (process != null) stopPod();
      runningManifest = null;
      crashes = 0;
      return;
    }
    if (!desired.equals(runningManifest)) {
      if (process != null) stopPod();
      runningManifest = desired;
      crashes = 0;
      restartAtMillis = 0;
    }
    if (process != null && !process.isAlive()) {
      crashes++;
      long backoff = Math.min(MAX_BACKOFF_MILLIS, 1000L << Math.min(crashes - 1, 10));
      appendLog(
          "kubelet stand-in: etcd exited with code "
              + process.exitValue()
              + ", restarting in "
              + backoff
              + " ms");
      process = null;
      deletePidFile();
      restartAtMillis = System.currentTimeMillis() + backoff;
    }
    if (process == null && System.currentTimeMillis() >= restartAtMillis) startPod(desired);
  }

  private void startPod(String text) {
    List<String> command;
    Path etcd;
    try {
      String image = ManifestImage.imageOf(text);
      String version =
          ManifestImage.versionOf(image)
              .orElseThrow(() -> new IllegalArgumentException("no etcd version in image " + image));
      if (!pullImage.test(image))
        throw new IllegalArgumentException(
            "ErrImagePull: " + image + " is not on the node and cannot be pulled");
      command = ManifestImage.commandOf(text);
      if (command.isEmpty() || !command.get(0).equals("etcd"))
        throw new IllegalArgumentException("the command must start with etcd");
      etcd = releases.binDir(version).resolve("etcd");
    } catch (RuntimeException e) {
      appendLog("kubelet stand-in: cannot run the pod: " + e.getMessage());
      restartAtMillis = System.currentTimeMillis() + MAX_BACKOFF_MILLIS;
      return;
    }
    List<String> argv = new ArrayList<>();
    argv.add(etcd.toString());
    argv.addAll(command.subList(1, command.size()));
    ProcessBuilder builder =
        new ProcessBuilder(argv)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
    builder.environment().keySet().removeIf(name -> name.startsWith("ETCD_"));
    try {
      process = builder.start();
      Path tmp = pidFile.resolveSibling(pidFile.getFileName() + ".tmp");
      Files.writeString(tmp, process.pid() + "\n");
      Files.move(tmp, pidFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      log.info(
          "kubelet stand-in of {}: started etcd {} (pid {})",
          member,
          etcd.getParent().getParent().getFileName(),
          process.pid());
    } catch (IOException e) {
      appendLog("kubelet stand-in: cannot start etcd: " + e.getMessage());
      restartAtMillis = System.currentTimeMillis() + MAX_BACKOFF_MILLIS;
    }
  }

  private void stopPod() {
    if (process == null) return;
    if (!closed) onStop.accept(member);
    process.destroy();
    try {
      if (!process.waitFor(TERMINATION_GRACE_SECONDS, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
    log.info("kubelet stand-in of {}: stopped etcd (pid {})", member, process.pid());
    process = null;
    deletePidFile();
  }

  private String readManifest() {
    try {
      return Files.readString(manifest);
    } catch (NoSuchFileException gone) {
      return null;
    } catch (IOException e) {
      log.warn("kubelet stand-in of {}: cannot read {}: {}", member, manifest, e.toString());
      return runningManifest; // keep what runs, as kubelet does with a manifest it cannot read
    }
  }

  private void deletePidFile() {
    try {
      Files.deleteIfExists(pidFile);
    } catch (IOException e) {
      log.warn("kubelet stand-in of {}: cannot delete {}: {}", member, pidFile, e.toString());
    }
  }

  private void appendLog(String line) {
    try {
      Files.writeString(
          logFile,
          Instant.now() + " " + line + "\n",
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      log.warn("kubelet stand-in of {}: cannot write {}: {}", member, logFile, e.toString());
    }
  }
}
