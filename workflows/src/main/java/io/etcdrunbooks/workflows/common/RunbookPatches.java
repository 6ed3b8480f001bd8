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

  public static final Patch SIGNED_APPROVALS =
      Patch.replayed(
          "signed-approvals",
          "2026-11-27",
          "On a worker with the shared approval key file, the approve signal no longer approves a"
              + " runbook whose approval needs a role (RecoverQuorum): only the approveRun update"
              + " with a token the API or Slack signed does.",
          "histories/recover-quorum-3.5.30-fenced.json",
          "histories/recover-quorum-3.5.30-revision-raised.json",
          "histories/recover-quorum-3.5.30.json");

  public static final Patch CONTROLS_MEMO =
      Patch.unreplayed(
          "controls-memo",
          "2026-11-23",
          "Each pause, resume, approval and cancel is kept in the memo with who gave it.");
}
