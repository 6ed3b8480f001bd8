package io.etcdrunbooks.workflows.common;

/** The changes to what every runbook does around its phases ({@link RunbookWorkflow}). */
public final class RunbookPatches {

  private RunbookPatches() {}

  public static final Patch CHANGE_ID_GUARD =
      Patch.replayed(
          "change-id-guard",
          "2026-11-23",
          "A runbook that changes a cluster refuses to run under any workflow id but the cluster's"
              + " change id (dry runs excepted).",
          "histories/replace-member-3.4.23-new-host.json",
          "histories/restore-3.5.16-two-of-three-destroyed.json",
          "histories/upgrade-3.3.25-to-3.5.30.json",
          "histories/upgrade-3.4.23-to-3.5.16-approved.json",
          "histories/upgrade-3.5.16-to-3.5.30-cancelled-mid-member.json");

  public static final Patch CONTROLS_MEMO =
      Patch.replayed(
          "controls-memo",
          "2026-11-23",
          "Each pause, resume, approval and cancel is kept in the memo with who gave it.",
          "histories/backup-in-memory-paused-before-controls-memo.json");
}
