package io.etcdrunbooks.activities.release;

import java.nio.file.Path;
import java.util.List;

/** etcd releases the worker can install, as directories of binaries on the worker's host. */
public interface ReleaseStore {

  /** Versions on offer, oldest first, for example [3.3.25, 3.4.23, 3.5.16, 3.5.30]. */
  List<String> versions();

  /**
   * Directory holding {@code etcd}, {@code etcdctl} and, from 3.5, {@code etcdutl} for the version,
   * fetched and checksum-verified first when the source needs to. Fails with a message naming the
   * version when it is not on offer.
   */
  Path binDir(String version);
}
