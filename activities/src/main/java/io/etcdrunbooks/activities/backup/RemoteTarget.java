package io.etcdrunbooks.activities.backup;

import io.etcdrunbooks.inventory.ClusterSpec;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * A place besides the worker's backup directory where a cluster's backups are kept: the off-site
 * host (backup.copyTo) or the object store (backup.objectStore). Retention and restores see each
 * the same way, and touch only backups in our own layout that name the cluster.
 */
interface RemoteTarget {

  /** Whether the cluster's inventory entry names this target. */
  boolean configuredFor(ClusterSpec spec);

  /** Where the cluster's backups are there, for messages ("host:dir", "s3://bucket/prefix/"). */
  String where(ClusterSpec spec);

  /** The cluster's backups there. */
  List<RemoteBackup> list(ClusterSpec spec);

  /** Deletes a backup there: its file first, then its record. */
  void delete(ClusterSpec spec, RemoteBackup backup);

  /**
   * Brings backup {@code id} into {@code dir}, its SHA-256 checked against its record before it is
   * kept; false when the target has no backup with this id.
   */
  boolean fetch(ClusterSpec spec, String id, Path dir);

  /** When the newest verified backup of the cluster there was taken; empty when there is none. */
  default Optional<Instant> newestVerifiedTakenAt(ClusterSpec spec) {
    return list(spec).stream()
        .filter(RemoteBackup::verified)
        .map(RemoteBackup::takenAt)
        .max(Comparator.naturalOrder());
  }
}
