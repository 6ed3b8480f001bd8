package io.etcdrunbooks.activities.backup;

import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.model.BackupRecord;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The backup a restore asks for, looked up on every target of the cluster and brought into the
 * worker's backup directory when the worker does not hold it; the restore then checks it (SHA-256,
 * decryption, etcd's own tool) as any kept backup, before anything is stopped.
 *
 * <p>{@code latest} is the newest verified backup across the worker's directory, the off-site host
 * and the object store; on a tie (the same backup on several targets, or two taken in the same
 * instant) the first in that order wins, so a copy already on the worker is never downloaded again.
 * An explicit id is looked for in the same order.
 */
final class BackupsAcrossTargets {

  private static final Logger log = LoggerFactory.getLogger(BackupsAcrossTargets.class);
  private static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");

  /** In tie order, after the worker's own directory. */
  private final List<RemoteTarget> remotes;

  BackupsAcrossTargets(List<RemoteTarget> remotes) {
    this.remotes = remotes;
  }

  /** The off-site host (when there is an SSH client) and the object store. */
  static BackupsAcrossTargets of(SshConnector ssh) {
    RemoteTarget store = new ObjectStoreCopy(ObjectStoreCopy.DEFAULT_PART_SIZE);
    return new BackupsAcrossTargets(
        ssh == null ? List.of(store) : List.of(new OffsiteCopy(ssh), store));
  }

  void bringToWorker(ClusterSpec spec, String backupId, String takenOnMinor) {
    Path dir = Path.of(spec.backupDir());
    if (backupId == null || backupId.isBlank() || backupId.equals("latest")) {
      bringNewest(spec, dir, takenOnMinor);
    } else if (ID.matcher(backupId).matches() && !Files.exists(dir.resolve(backupId + ".json"))) {
      ApplicationFailure unreachable = null;
      for (RemoteTarget target : remotes) {
        try {
          if (target.configuredFor(spec) && target.fetch(spec, backupId, dir)) return;
        } catch (ApplicationFailure e) {
          if (FailureType.BackupCorrupt.name().equals(e.getType())) throw e;
          // another target may hold it; this one's failure stands when none does
          unreachable = e;
        }
      }
      if (unreachable != null) throw unreachable;
      log.info(
          "backup {} of cluster {} is on none of its targets (worker, off-site, object store)",
          backupId,
          spec.name());
    }
  }

  private void bringNewest(ClusterSpec spec, Path dir, String takenOnMinor) {
    Optional<BackupRecord> onWorker;
    try {
      onWorker =
          StoredBackups.keptRecords(spec, dir).values().stream()
              .filter(r -> StoredBackups.isWhole(dir, r))
              .filter(r -> takenOn(r, takenOnMinor))
              .max((a, b) -> Instant.parse(a.takenAt()).compareTo(Instant.parse(b.takenAt())));
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot read the backups of cluster '" + spec.name() + "' in " + dir, e);
    }
    Instant newest = onWorker.map(r -> Instant.parse(r.takenAt())).orElse(Instant.MIN);
    RemoteTarget from = null;
    RemoteBackup winner = null;
    for (RemoteTarget target : remotes) {
      if (!target.configuredFor(spec)) continue;
      for (RemoteBackup b : listed(spec, target)) {
        // strictly newer: on a tie the target before wins
        if (b.verified() && takenOn(b.record(), takenOnMinor) && b.takenAt().isAfter(newest)) {
          newest = b.takenAt();
          winner = b;
          from = target;
        }
      }
    }
    if (winner == null) return;
    String id = winner.record().id();
    log.info(
        "latest backup of cluster {} is {} ({}), in {}; downloading it",
        spec.name(),
        id,
        winner.record().takenAt(),
        from.where(spec));
    if (!from.fetch(spec, id, dir)) {
      throw ApplicationFailure.newFailure(
          "backup "
              + id
              + " of cluster '"
              + spec.name()
              + "' went from "
              + from.where(spec)
              + " while it was being fetched; retried",
          "BackupMoved");
    }
  }

  /**
   * A target that cannot be listed is left out of {@code latest} (logged): after losing a site, the
   * others still restore.
   */
  private static List<RemoteBackup> listed(ClusterSpec spec, RemoteTarget target) {
    try {
      return target.list(spec);
    } catch (ApplicationFailure e) {
      log.warn(
          "latest backup of cluster {}: {} left out, it cannot be listed: {}",
          spec.name(),
          target.where(spec),
          e.getOriginalMessage());
      return new ArrayList<>();
    }
  }

  private static boolean takenOn(BackupRecord r, String minor) {
    return minor == null || minor.isBlank() || r.etcdVersion().startsWith(minor + ".");
  }
}
