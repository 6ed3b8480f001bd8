package io.etcdrunbooks.activities.backup;

import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.workflows.activities.DrillActivities.TargetBackup;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.model.BackupRecord;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A restore drill's view of a cluster's targets: the newest verified backup on each, and that
 * target's own copy of it brought into the drill's scratch space, so that a corrupt or missing copy
 * on one target is found even when another target holds a good one. Copies are never fetched into
 * the worker's backup directory, where retention would count them as the worker's own.
 */
final class DrillCopies {

  private final Map<String, RemoteTarget> remotes = new LinkedHashMap<>();

  /**
   * @param ssh the client the off-site host is reached with (null: off-site copies are not drilled)
   */
  DrillCopies(SshConnector ssh) {
    if (ssh != null) remotes.put(NewestBackups.OFFSITE, new OffsiteCopy(ssh));
    remotes.put(NewestBackups.OBJECT_STORE, new ObjectStoreCopy(ObjectStoreCopy.DEFAULT_PART_SIZE));
  }

  /** In order: the worker, then each remote target the cluster names. */
  List<TargetBackup> newest(ClusterSpec spec) {
    List<TargetBackup> newest = new ArrayList<>();
    newest.add(local(spec));
    for (Map.Entry<String, RemoteTarget> e : remotes.entrySet()) {
      RemoteTarget target = e.getValue();
      if (!target.configuredFor(spec)) continue;
      try {
        Optional<RemoteBackup> found =
            target.list(spec).stream()
                .filter(RemoteBackup::verified)
                .max(Comparator.comparing(RemoteBackup::takenAt));
        newest.add(
            found
                .map(b -> new TargetBackup(e.getKey(), b.record().id(), ""))
                .orElseGet(
                    () ->
                        new TargetBackup(
                            e.getKey(), "", "no verified backup in " + target.where(spec))));
      } catch (ApplicationFailure ex) {
        newest.add(
            new TargetBackup(
                e.getKey(),
                "",
                target.where(spec) + " cannot be listed: " + ex.getOriginalMessage()));
      }
    }
    return newest;
  }

  /**
   * The cluster as seen from where the drill reads {@code target}'s copy of backup {@code id}: the
   * worker's backup directory for {@code local}, else {@code copyDir}, fetched there (SHA-256
   * checked) unless an earlier attempt already did.
   */
  ClusterSpec copyOn(ClusterSpec spec, String target, String id, Path copyDir) {
    if (NewestBackups.LOCAL.equals(target)) return spec;
    RemoteTarget remote = remotes.get(target);
    if (remote == null || !remote.configuredFor(spec))
      throw FailureType.InvalidRequest.nonRetryable(
          "cluster '" + spec.name() + "' has no backup target '" + target + "'");
    ClusterSpec fetched = spec.withBackupDir(copyDir.toString());
    if (!Files.exists(copyDir.resolve(id + ".json")) && !remote.fetch(spec, id, copyDir))
      throw FailureType.BackupCorrupt.nonRetryable(
          "backup %s of cluster '%s' is no longer in %s (%s)"
              .formatted(id, spec.name(), remote.where(spec), target));
    return fetched;
  }

  private static TargetBackup local(ClusterSpec spec) {
    Path dir = Path.of(spec.backupDir());
    try {
      return StoredBackups.keptRecords(spec, dir).values().stream()
          .filter(r -> StoredBackups.isWhole(dir, r))
          .max(Comparator.comparing(r -> Instant.parse(r.takenAt())))
          .map(BackupRecord::id)
          .map(id -> new TargetBackup(NewestBackups.LOCAL, id, ""))
          .orElseGet(
              () ->
                  new TargetBackup(
                      NewestBackups.LOCAL, "", "no kept backup whose file is whole in " + dir));
    } catch (IOException e) {
      return new TargetBackup(
          NewestBackups.LOCAL, "", "the backups in " + dir + " cannot be read: " + e.getMessage());
    }
  }
}
