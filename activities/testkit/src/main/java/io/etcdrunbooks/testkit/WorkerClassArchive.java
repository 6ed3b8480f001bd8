package io.etcdrunbooks.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

/**
 * The classes a worker loads until it polls, shared between the tests' worker JVMs (AppCDS): a
 * worker started from the product jar with the archive spends 1.9 CPU-s until it polls instead of
 * 4.0-4.4. JDK 17 archives classes only from jars, hence the product jar rather than the tests'
 * class path, whose classes are directories. The archive is made once per build of the jar, by a
 * worker of its own that polls a throwaway task queue and is then stopped (the JVM writes it at a
 * graceful exit, which the tests' SIGKILLed workers never reach), in the background: the workers
 * started before it is there start without it. Test JVMs running side by side make it once, the
 * first one that claims it.
 */
final class WorkerClassArchive {

  private static final long POLLING_WITHIN_SECONDS = 120;

  /** One try per test JVM: a maker that fails costs a worker's start and is not repeated. */
  private static final AtomicBoolean TRIED = new AtomicBoolean();

  private final Path jar;
  private final Path archive;

  private WorkerClassArchive(Path jar) {
    this.jar = jar;
    try {
      // named after the jar's build: an archive checks the jars it was made from and is not
      // used for others
      this.archive =
          jar.resolveSibling(
              "worker-classes-" + Files.getLastModifiedTime(jar).toMillis() + ".jsa");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The archive of the product jar {@code dir/etcd-runbooks.jar}, if the build has made it. */
  static Optional<WorkerClassArchive> ofProductDir(String dir) {
    if (dir == null || dir.isBlank()) return Optional.empty();
    Path jar = Path.of(dir, "etcd-runbooks.jar");
    return Files.isRegularFile(jar) ? Optional.of(new WorkerClassArchive(jar)) : Optional.empty();
  }

  Path jar() {
    return jar;
  }

  /**
   * The JVM options that share the archive, once it is made; none before, and the first call of any
   * test JVM starts making it, for a worker on {@code temporalAddress} with {@code inventory}.
   */
  List<String> options(Path inventory, String temporalAddress) {
    if (Files.isRegularFile(archive)) return List.of("-XX:SharedArchiveFile=" + archive);
    if (!TRIED.compareAndSet(false, true)) return List.of();
    Path claim = Path.of(archive + ".making");
    try {
      Files.createFile(claim);
    } catch (FileAlreadyExistsException another) {
      return List.of();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Thread maker =
        new Thread(() -> make(inventory, temporalAddress, claim), "worker-class-archive");
    maker.setDaemon(true);
    maker.start();
    return List.of();
  }

  private void make(Path inventory, String temporalAddress, Path claim) {
    Path made = Path.of(archive + ".part");
    Path log = Path.of(archive + ".log");
    try {
      removeOlderArchives();
      List<String> command = new ArrayList<>(WorkerProcess.jvm());
      command.add("-XX:ArchiveClassesAtExit=" + made);
      command.addAll(List.of("-cp", jar.toString()));
      command.addAll(WorkerProcess.settings(inventory, temporalAddress, "worker-class-archive"));
      Process worker =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      // a test JVM that ends first takes its maker with it, and another may make the archive
      Thread reaper = new Thread(worker::destroyForcibly, "worker-class-archive-reaper");
      Runtime.getRuntime().addShutdownHook(reaper);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(POLLING_WITHIN_SECONDS);
      while (worker.isAlive() && System.nanoTime() < deadline && !polling(log))
        TimeUnit.MILLISECONDS.sleep(200);
      worker.destroy(); // SIGTERM: a graceful exit, at which the JVM writes the archive
      boolean written = worker.waitFor(POLLING_WITHIN_SECONDS, TimeUnit.SECONDS);
      if (!written) worker.destroyForcibly(); // a half-written archive is not kept
      Runtime.getRuntime().removeShutdownHook(reaper);
      if (written && Files.isRegularFile(made) && Files.size(made) > 0)
        Files.move(made, archive, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      System.err.println("the workers' class archive " + archive + " was not made: " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      // made or not: another test JVM may try again when it is not
      deleteQuietly(claim);
    }
  }

  private static void deleteQuietly(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      System.err.println("cannot delete " + file + ": " + e);
    }
  }

  private static boolean polling(Path log) throws IOException {
    return Files.exists(log) && Files.readString(log).contains("worker polling task queue");
  }

  /** An archive of an earlier build of the jar is of no use, and about 80 MB. */
  private void removeOlderArchives() throws IOException {
    try (Stream<Path> files = Files.list(jar.getParent())) {
      for (Path f : files.toList()) {
        String name = f.getFileName().toString();
        if (name.startsWith("worker-classes-")
            && !name.startsWith(archive.getFileName().toString())) Files.deleteIfExists(f);
      }
    }
  }
}
