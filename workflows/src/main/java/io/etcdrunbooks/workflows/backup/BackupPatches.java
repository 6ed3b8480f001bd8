package io.etcdrunbooks.workflows.backup;

import io.etcdrunbooks.workflows.common.Patch;

/** The changes to BackupCluster since it shipped. */
final class BackupPatches {

  private BackupPatches() {}

  static final Patch OFFSITE_COPY =
      Patch.replayed(
          "offsite-copy",
          "2026-11-23",
          "Each verified backup is copied off site (SFTP) when the inventory names a place.",
          "histories/backup-in-memory-kept.json");
}
