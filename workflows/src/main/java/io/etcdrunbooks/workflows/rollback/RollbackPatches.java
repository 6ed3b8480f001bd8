package io.etcdrunbooks.workflows.rollback;

import io.etcdrunbooks.workflows.common.Patch;

/** The changes to RollbackCluster since it shipped, oldest first. */
final class RollbackPatches {

  private RollbackPatches() {}

  static final Patch RESTORE_CHILD_ID =
      Patch.replayed(
          "restore-child-id",
          "2026-11-23",
          "A rollback's restore runs as change-<cluster>-restore (its parent holds the change id);"
              + " before, as restore-<cluster>.",
          "histories/rollback-in-memory-by-restore-child-restore-c.json");

  static final Patch SETTLE_RESTARTS =
      Patch.replayed(
          "settle-host-restarts",
          "2026-11-26",
          "Restarts still running on the members' hosts are waited for before the plan.",
          "histories/rollback-in-memory-approved.json",
          "histories/rollback-in-memory-by-restore-child-restore-c.json",
          "histories/rollback-in-memory-by-restore-dry-run.json",
          "histories/rollback-in-memory-by-restore.json",
          "histories/rollback-in-memory-member-by-member.json");

  static final Patch ONLINE_DOWNGRADE =
      Patch.unreplayed(
          "rollback-online-downgrade",
          "2026-11-27",
          "Past a moved cluster version of 3.6 or later, one minor above the target, the rollback"
              + " runs the DowngradeCluster runbook as its child (no data lost) instead of a restore.");
}
