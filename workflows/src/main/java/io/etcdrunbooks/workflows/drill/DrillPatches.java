package io.etcdrunbooks.workflows.drill;

import io.etcdrunbooks.workflows.common.Patch;

/** The changes to RestoreDrill since it shipped, oldest first. */
final class DrillPatches {

  private DrillPatches() {}

  static final Patch EVERY_TARGET =
      Patch.unreplayed(
          "restore-drill-every-target",
          "2026-11-27",
          "A drill without a backupId drills the newest verified backup of each target the cluster"
              + " has (worker, off-site host, object store), each fetched from its own target;"
              + " before, only the newest backup across them.");
}
