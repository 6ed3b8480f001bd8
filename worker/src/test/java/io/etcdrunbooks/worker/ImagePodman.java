package io.etcdrunbooks.worker;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;

/**
 * Debian bookworm's podman 4.3, as root, with what this kind of host needs: runc, since crun 1.8
 * refuses hosts whose cgroup v2 hierarchy holds a controller beside v1's ("cgroups in hybrid mode
 * not supported"); ulimits below the process's own, since podman's default (nofile 1048576) needs
 * CAP_SYS_RESOURCE, which this host's root lacks; cgroupfs, not systemd, as cgroup manager; and
 * storage of its own under target/podman, so no other image named alike is touched.
 */
final class ImagePodman {

  private static final Path PODMAN = Path.of("/usr/bin/podman");
  private static final Path RUNC = Path.of("/usr/sbin/runc");

  private final Path storage;

  private ImagePodman(Path storage) {
    this.storage = storage;
  }

  /** Podman with its storage under {@code target}, or why it cannot run here. */
  static ImagePodman in(Path target) {
    return new ImagePodman(target.resolve("podman"));
  }

  /** Empty when podman and runc are installed (deploy/scripts/fetch-podman.sh), else why not. */
  static Optional<String> missing() {
    if (!Files.isExecutable(PODMAN) || !Files.isExecutable(RUNC)) {
      return Optional.of(
          "podman or runc is not installed (bash deploy/scripts/fetch-podman.sh, as root)");
    }
    return Optional.empty();
  }

  /**
   * Loads Jib's OCI archive, unless this very archive was loaded last (its index.json names the
   * manifest's digest); returns the image's name in podman's store.
   */
  String load(Path archive) throws Exception {
    byte[] index = null;
    try (TarArchiveInputStream in = new TarArchiveInputStream(Files.newInputStream(archive))) {
      for (TarArchiveEntry e; (e = in.getNextEntry()) != null && index == null; ) {
        if (e.getName().equals("index.json")) {
          index = in.readAllBytes();
        }
      }
    }
    if (index == null) {
      throw new IllegalStateException("no index.json in " + archive);
    }
    String name =
        "localhost/"
            + new ObjectMapper()
                .readTree(index)
                .at("/manifests/0/annotations/org.opencontainers.image.ref.name")
                .asText();
    Path loadedIndex = storage.resolve("loaded-index.json");
    if (Files.exists(loadedIndex) && Arrays.equals(Files.readAllBytes(loadedIndex), index)) {
      return name;
    }
    Result loaded = podman(List.of("load", "-q", "-i", archive.toString()));
    if (loaded.exitCode() != 0) {
      throw new IllegalStateException("podman load " + archive + ": " + loaded.output());
    }
    Files.write(loadedIndex, index);
    // the image this one replaced under its name, 600 MB in this store
    podman(List.of("image", "prune", "-f"));
    return name;
  }

  /**
   * {@code podman run --rm} as a cluster would run the chart's pod: read-only root file system, a
   * tmpfs on /tmp (the chart's emptyDir), user 10001, on the host's network.
   */
  Result run(List<String> options, String image, List<String> args) throws Exception {
    List<String> removed = new ArrayList<>(List.of("--rm"));
    removed.addAll(options);
    return podman(runCommand(removed, image, args));
  }

  /**
   * As {@link #run}, detached and kept after it ends (its log is read on failure, {@link #remove}
   * removes it): the container's name is returned once it started.
   */
  String start(String name, List<String> options, String image) throws Exception {
    List<String> detached = new ArrayList<>(List.of("-d", "--name", name));
    detached.addAll(options);
    Result started = podman(runCommand(detached, image, List.of()));
    if (started.exitCode() != 0) {
      throw new IllegalStateException("podman run " + image + ": " + started.output());
    }
    return name;
  }

  String logs(String container) throws Exception {
    return podman(List.of("logs", container)).output();
  }

  boolean running(String container) throws Exception {
    return podman(List.of("inspect", "--format", "{{.State.Running}}", container))
        .output()
        .trim()
        .equals("true");
  }

  void remove(String container) throws Exception {
    podman(List.of("rm", "-f", "-t", "5", container));
  }

  private static List<String> runCommand(List<String> options, String image, List<String> args) {
    List<String> command =
        new ArrayList<>(
            List.of(
                "run",
                "--runtime=runc",
                "--ulimit",
                "nofile=8192:8192",
                "--ulimit",
                "nproc=4096:4096",
                "--network=host",
                "--read-only",
                "--tmpfs",
                "/tmp",
                "--user",
                "10001:10001"));
    command.addAll(options);
    command.add(image);
    command.addAll(args);
    return command;
  }

  private Result podman(List<String> args) throws Exception {
    List<String> command =
        new ArrayList<>(
            List.of(
                PODMAN.toString(),
                "--root",
                storage.resolve("root").toString(),
                "--runroot",
                storage.resolve("run").toString(),
                "--cgroup-manager=cgroupfs",
                "--events-backend=none"));
    command.addAll(args);
    return Result.of(command);
  }

  record Result(int exitCode, String output) {

    static Result of(List<String> command) throws IOException, InterruptedException {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(180, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException(command + " did not end in 180 s: " + out);
      }
      return new Result(p.exitValue(), out);
    }
  }
}
