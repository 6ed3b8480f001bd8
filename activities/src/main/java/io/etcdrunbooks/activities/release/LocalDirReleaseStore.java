package io.etcdrunbooks.activities.release;

import io.etcdrunbooks.workflows.model.EtcdVersion;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * Releases laid out as {@code <dir>/<version>/bin/etcd}, the layout deploy/scripts/fetch-etcd.sh
 * writes.
 */
public final class LocalDirReleaseStore implements ReleaseStore {

  private final Path dir;

  /**
   * Where deploy/scripts/fetch-etcd.sh puts releases: {@code $ETCD_RUNBOOKS_CACHE/etcd}, else
   * {@code ~/.cache/etcd-runbooks/etcd}. (An unset variable that a build tool passed on literally
   * counts as unset.)
   */
  public static Path defaultDir() {
    String cache = System.getenv("ETCD_RUNBOOKS_CACHE");
    Path root =
        cache == null || cache.isBlank() || cache.startsWith("${")
            ? Path.of(System.getProperty("user.home"), ".cache", "etcd-runbooks")
            : Path.of(cache);
    return root.resolve("etcd");
  }

  public LocalDirReleaseStore(Path dir) {
    this.dir = dir;
  }

  /** The directory holding {@code <version>/bin}. */
  public Path dir() {
    return dir;
  }

  @Override
  public List<String> versions() {
    if (!Files.isDirectory(dir)) return List.of();
    try (Stream<Path> entries = Files.list(dir)) {
      return entries
          .filter(p -> Files.isExecutable(p.resolve("bin/etcd")))
          .map(p -> p.getFileName().toString())
          .filter(EtcdVersion::isVersion)
          .sorted(EtcdVersion.STRING_ORDER)
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list releases in " + dir, e);
    }
  }

  @Override
  public Path binDir(String version) {
    Path bin = dir.resolve(version).resolve("bin");
    if (!Files.isExecutable(bin.resolve("etcd"))) {
      throw new IllegalArgumentException(
          "etcd "
              + version
              + " is not in the release directory "
              + dir
              + " (it has "
              + versions()
              + "); fetch it with deploy/scripts/fetch-etcd.sh or configure releases.urlTemplate");
    }
    return bin;
  }
}
