package io.etcdrunbooks.workflows.backup;

import io.etcdrunbooks.workflows.common.Patch;

/** The changes to BackupCluster and BackupSchedule since they shipped. */
final class BackupPatches {

  private BackupPatches() {}

  static final Patch OFFSITE_COPY =
      Patch.replayed(
          "offsite-copy",
          "2026-11-23",
          "Each verified backup is copied off site (SFTP) when the inventory names a place.",
          "histories/backup-in-memory-kept.json");

  static final Patch SCHEDULED_BACKUP_STARTED_BY =
      Patch.replayed(
          "scheduled-backup-started-by",
          "2026-11-27",
          "A schedule's BackupCluster child carries the schedule as startedBy in its memo, so that a"
              + " manual backup refused while it runs names it.",
          "histories/backup-schedule-in-memory-three-backups.json",
          "histories/backup-schedule-in-memory-one-failed.json",
          "histories/backup-schedule-in-memory-inventory-interval.json");
}
