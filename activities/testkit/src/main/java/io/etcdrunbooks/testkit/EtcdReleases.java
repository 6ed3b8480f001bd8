package io.etcdrunbooks.testkit;

import io.etcdrunbooks.activities.release.LocalDirReleaseStore;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The etcd binaries deploy/scripts/fetch-etcd.sh caches: $ETCD_RUNBOOKS_CACHE/etcd/<version>/bin.
 */
public final class EtcdReleases {

  private EtcdReleases() {}

  public static Path dir() {
    return LocalDirReleaseStore.defaultDir();
  }

  public static LocalDirReleaseStore store() {
    return new LocalDirReleaseStore(dir());
  }

  /** The cached bin directory of a version; fails with a hint when it was not fetched. */
  public static Path binDir(String version) {
    Path bin = dir().resolve(version).resolve("bin");
    if (!Files.isExecutable(bin.resolve("etcd"))) {
      throw new IllegalStateException(
          "etcd "
              + version
              + " is not cached in "
              + dir()
              + "; run deploy/scripts/fetch-etcd.sh "
              + version
              + " (the versions it fetches are listed in deploy/etcd-releases.tsv)");
    }
    return bin;
  }
}
