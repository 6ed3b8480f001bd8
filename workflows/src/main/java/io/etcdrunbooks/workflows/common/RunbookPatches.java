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
          "histories/rollback-in-memory-by-restore-child-restore-c.json",
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

  public static final Patch RUN_ID_RANDOM_SUFFIX =
      Patch.replayed(
          "run-id-random-suffix",
          "2026-11-27",
          "The ids a run gives what it makes (its backups, restore, migration, rotation and recovery"
              + " ids) end with the run id's last 8 hex digits, not its first: a newer Temporal's run"
              + " ids are UUIDv7, whose first digits are the time, so two runs started within a"
              + " minute got the same ids (two scheduled backups in one second, seen in a test; a"
              + " runbook started again soon after a failure would have taken the failed run's"
              + " pre-change backup as its own).",
          "histories/backup-in-memory-approved.json",
          "histories/backup-in-memory-kept.json",
          "histories/backup-in-memory-paused-before-controls-memo.json",
          "histories/enable-tls-3.4.23.json",
          "histories/enable-tls-3.5.30-unmanaged-client-held.json",
          "histories/enable-tls-3.5.30.json",
          "histories/migrate-3.3.25-kubernetes-1.5-data.json",
          "histories/migrate-3.3.25-one-prefix-one-v3-store.json",
          "histories/migrate-in-memory-failed-after-no-return.json",
          "histories/migrate-in-memory-first-apiserver-unhealthy.json",
          "histories/migrate-in-memory-migrated.json",
          "histories/migrate-in-memory-rolled-back-at-migrate.json",
          "histories/recover-quorum-3.5.30-fenced.json",
          "histories/recover-quorum-3.5.30-revision-raised.json",
          "histories/recover-quorum-3.5.30.json",
          "histories/restore-3.5.16-two-of-three-destroyed-id-and-hosts-checked.json",
          "histories/restore-3.5.16-two-of-three-destroyed.json",
          "histories/rotate-ca-3.5.30-kubeadm-pki.json",
          "histories/rotate-ca-3.5.30.json",
          "histories/rotate-certificates-3.5.30-kubeadm-pki.json",
          "histories/rotate-certificates-3.5.30-static-pod.json",
          "histories/rotate-certificates-in-memory-old-certificates-put-back.json",
          "histories/upgrade-3.3.25-to-3.5.30-id-and-hosts-checked.json",
          "histories/upgrade-3.3.25-to-3.5.30-restart-in-one-activity.json",
          "histories/upgrade-3.3.25-to-3.5.30-restart-reads-reused.json",
          "histories/upgrade-3.3.25-to-3.5.30-staged-and-watched.json",
          "histories/upgrade-3.3.25-to-3.5.30.json",
          "histories/upgrade-3.4.23-to-3.5.16-approved.json",
          "histories/upgrade-3.5.16-to-3.5.30-cancelled-mid-member.json",
          "histories/upgrade-in-memory-follower-failed-rung-put-back.json",
          "histories/upgrade-in-memory-last-member-not-ready-before-degraded-ending.json",
          "histories/upgrade-in-memory-leader-failed-before-recheck-before-put-back.json",
          "histories/upgrade-in-memory-leader-failed-before-saga-compensation.json",
          "histories/upgrade-in-memory-leader-failed-followers-put-back.json");

  public static final Patch CONTROLS_MEMO =
      Patch.replayed(
          "controls-memo",
          "2026-11-23",
          "Each pause, resume, approval and cancel is kept in the memo with who gave it.",
          "histories/backup-in-memory-paused-before-controls-memo.json");

  /** Every history recorded before it takes its old branch: it is asked first thing in a run. */
  public static final Patch SEARCH_ATTRIBUTES_AT_START =
      Patch.replayed(
          "search-attributes-at-start",
          "2026-11-27",
          "A run started without the search attributes (Web UI, CLI) upserts them at its start"
              + " when the worker says the namespace has them.",
          "histories/backup-in-memory-approved.json",
          "histories/backup-in-memory-kept.json",
          "histories/backup-in-memory-paused-before-controls-memo.json",
          "histories/backup-schedule-in-memory-inventory-interval.json",
          "histories/backup-schedule-in-memory-one-failed.json",
          "histories/backup-schedule-in-memory-three-backups.json",
          "histories/enable-tls-3.4.23.json",
          "histories/enable-tls-3.5.30-unmanaged-client-held.json",
          "histories/enable-tls-3.5.30.json",
          "histories/fleet-in-memory-three-waves-baked.json",
          "histories/fleet-in-memory-three-waves.json",
          "histories/maintenance-in-memory-compacted.json",
          "histories/maintenance-nospace-3.5.30.json",
          "histories/migrate-3.3.25-kubernetes-1.5-data.json",
          "histories/migrate-3.3.25-one-prefix-one-v3-store.json",
          "histories/migrate-in-memory-failed-after-no-return.json",
          "histories/migrate-in-memory-first-apiserver-unhealthy.json",
          "histories/migrate-in-memory-migrated.json",
          "histories/migrate-in-memory-rolled-back-at-migrate.json",
          "histories/recover-quorum-3.5.30-fenced.json",
          "histories/recover-quorum-3.5.30-revision-raised.json",
          "histories/recover-quorum-3.5.30.json",
          "histories/replace-member-3.4.23-new-host-id-and-hosts-checked.json",
          "histories/replace-member-3.4.23-new-host.json",
          "histories/replace-member-in-memory-alert-resolved.json",
          "histories/replace-member-in-memory-approved.json",
          "histories/replace-member-in-memory-cancelled-awaiting-approval.json",
          "histories/replace-member-in-memory-dry-run.json",
          "histories/replace-member-in-memory-join-failed.json",
          "histories/replace-member-in-memory-postflight-failed.json",
          "histories/replace-member-in-memory-refused.json",
          "histories/replace-member-in-memory-second-apiserver-unhealthy.json",
          "histories/restore-3.5.16-two-of-three-destroyed-id-and-hosts-checked.json",
          "histories/restore-3.5.16-two-of-three-destroyed.json",
          "histories/rollback-in-memory-approved.json",
          "histories/rollback-in-memory-by-restore-child-restore-c.json",
          "histories/rollback-in-memory-by-restore-dry-run.json",
          "histories/rollback-in-memory-by-restore.json",
          "histories/rollback-in-memory-member-by-member.json",
          "histories/rotate-ca-3.5.30-kubeadm-pki.json",
          "histories/rotate-ca-3.5.30.json",
          "histories/rotate-certificates-3.5.30-kubeadm-pki.json",
          "histories/rotate-certificates-3.5.30-static-pod.json",
          "histories/rotate-certificates-in-memory-old-certificates-put-back.json",
          "histories/scale-grow-3.5.30.json",
          "histories/scale-shrink-3.5.30.json",
          "histories/upgrade-3.3.25-to-3.5.30-id-and-hosts-checked.json",
          "histories/upgrade-3.3.25-to-3.5.30-restart-in-one-activity.json",
          "histories/upgrade-3.3.25-to-3.5.30-restart-reads-reused.json",
          "histories/upgrade-3.3.25-to-3.5.30-staged-and-watched.json",
          "histories/upgrade-3.3.25-to-3.5.30.json",
          "histories/upgrade-3.4.23-to-3.5.16-approved.json",
          "histories/upgrade-3.5.16-to-3.5.30-cancelled-mid-member.json",
          "histories/upgrade-in-memory-flags-unreadable-before-preflight-reads-in-parallel.json",
          "histories/upgrade-in-memory-follower-failed-rung-put-back.json",
          "histories/upgrade-in-memory-last-member-not-ready-before-degraded-ending.json",
          "histories/upgrade-in-memory-leader-failed-before-recheck-before-put-back.json",
          "histories/upgrade-in-memory-leader-failed-before-saga-compensation.json",
          "histories/upgrade-in-memory-leader-failed-followers-put-back.json");
}
