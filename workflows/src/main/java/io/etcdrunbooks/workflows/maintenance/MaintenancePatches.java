package io.etcdrunbooks.workflows.maintenance;

import io.etcdrunbooks.workflows.common.Patch;

/** The changes to Maintenance since it shipped. */
final class MaintenancePatches {

  private MaintenancePatches() {}

  static final Patch COMPACTION_WINDOW =
      Patch.replayed(
          "compaction-window",
          "2026-11-26",
          "A compaction inside kube-apiserver's own compaction window is refused unless forced.",
          "histories/maintenance-in-memory-compacted.json");
}
