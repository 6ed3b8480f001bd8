package io.etcdrunbooks.workflows.phases;

import io.etcdrunbooks.workflows.common.Patch;

/** The changes to the phases several runbooks share. */
public final class PhasePatches {

  private PhasePatches() {}

  public static final Patch HOST_ACCESS_PREFLIGHT =
      Patch.replayed(
          "host-access-preflight",
          "2026-11-23",
          "The preflight logs in to every member's and control-plane host and runs the runbook's"
              + " commands there before anything is touched (HostAccessPreflight).",
          "histories/replace-member-3.4.23-new-host.json",
          "histories/restore-3.5.16-two-of-three-destroyed.json",
          "histories/rollback-in-memory-by-restore-child-restore-c.json",
          "histories/upgrade-3.3.25-to-3.5.30.json",
          "histories/upgrade-3.4.23-to-3.5.16-approved.json",
          "histories/upgrade-3.5.16-to-3.5.30-cancelled-mid-member.json");

  public static final Patch CERTIFICATE_EXPIRY =
      Patch.replayed(
          "certificate-expiry",
          "2026-11-24",
          "The preflight refuses a change while a member's server certificate has expired or"
              + " expires within the inventory's window (CertificateExpiry).",
          "histories/migrate-3.3.25-kubernetes-1.5-data.json",
          "histories/migrate-in-memory-failed-after-no-return.json",
          "histories/migrate-in-memory-first-apiserver-unhealthy.json",
          "histories/migrate-in-memory-migrated.json",
          "histories/migrate-in-memory-rolled-back-at-migrate.json",
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
          "histories/upgrade-3.3.25-to-3.5.30-id-and-hosts-checked.json",
          "histories/upgrade-3.3.25-to-3.5.30.json",
          "histories/upgrade-3.4.23-to-3.5.16-approved.json",
          "histories/upgrade-3.5.16-to-3.5.30-cancelled-mid-member.json",
          "histories/upgrade-in-memory-leader-failed-before-recheck-before-put-back.json",
          "histories/upgrade-in-memory-leader-failed-before-saga-compensation.json");

  public static final Patch KUBEADM_CONFIG =
      Patch.replayed(
          "kubeadm-config",
          "2026-11-26",
          "Upgrades, rollbacks, replacements, scaling and quorum recovery set kubeadm-config's etcd"
              + " image or external endpoints after they change the members (KubeadmConfigSync).",
          "histories/recover-quorum-3.5.30-fenced.json",
          "histories/recover-quorum-3.5.30-revision-raised.json",
          "histories/recover-quorum-3.5.30.json",
          "histories/replace-member-3.4.23-new-host-id-and-hosts-checked.json",
          "histories/replace-member-3.4.23-new-host.json",
          "histories/replace-member-in-memory-approved.json",
          "histories/replace-member-in-memory-postflight-failed.json",
          "histories/rollback-in-memory-approved.json",
          "histories/rollback-in-memory-by-restore-child-restore-c.json",
          "histories/rollback-in-memory-by-restore.json",
          "histories/rollback-in-memory-member-by-member.json",
          "histories/scale-grow-3.5.30.json",
          "histories/scale-shrink-3.5.30.json",
          "histories/upgrade-3.3.25-to-3.5.30-id-and-hosts-checked.json",
          "histories/upgrade-3.3.25-to-3.5.30-restart-in-one-activity.json",
          "histories/upgrade-3.3.25-to-3.5.30-restart-reads-reused.json",
          "histories/upgrade-3.3.25-to-3.5.30-staged-and-watched.json",
          "histories/upgrade-3.3.25-to-3.5.30.json",
          "histories/upgrade-3.4.23-to-3.5.16-approved.json");

  /** The second generation of a member's restart; see {@link LegacyMemberSwitch}. */
  public static final Patch READY_WHILE_WATCHED =
      Patch.replayed(
          "ready-while-watched",
          "2026-11-25",
          "A member's stop, flags, install and start in one activity (switchVersion), then its"
              + " readiness while its process is watched, in place of four activities and a fixed"
              + " stay-up wait.",
          "histories/rollback-in-memory-approved.json",
          "histories/rollback-in-memory-member-by-member.json",
          "histories/upgrade-3.3.25-to-3.5.30-id-and-hosts-checked.json",
          "histories/upgrade-3.3.25-to-3.5.30.json",
          "histories/upgrade-3.4.23-to-3.5.16-approved.json",
          "histories/upgrade-3.5.16-to-3.5.30-cancelled-mid-member.json",
          "histories/upgrade-in-memory-last-member-not-ready-before-degraded-ending.json",
          "histories/upgrade-in-memory-leader-failed-before-recheck-before-put-back.json",
          "histories/upgrade-in-memory-leader-failed-before-saga-compensation.json");

  /** The live generation of a member's restart ({@link MemberVersionSwitch}). */
  public static final Patch RESTART_IN_ONE_ACTIVITY =
      Patch.replayed(
          "restart-in-one-activity",
          "2026-11-26",
          "A member's restart and its readiness in one activity (restartMember), measured on the"
              + " worker: no Temporal round trip inside the member's down time.",
          "histories/upgrade-3.3.25-to-3.5.30-staged-and-watched.json");

  public static final Patch TRANSLATE_FLAGS =
      Patch.replayed(
          "translate-flags",
          "2026-11-24",
          "Renamed flags translated where the member's flags live before it starts on another"
              + " version (both ways), and the upgrade's preflight says what will be translated.",
          "histories/rollback-in-memory-approved.json",
          "histories/rollback-in-memory-member-by-member.json",
          "histories/upgrade-3.3.25-to-3.5.30-id-and-hosts-checked.json",
          "histories/upgrade-3.3.25-to-3.5.30.json",
          "histories/upgrade-3.4.23-to-3.5.16-approved.json",
          "histories/upgrade-3.5.16-to-3.5.30-cancelled-mid-member.json",
          "histories/upgrade-in-memory-leader-failed-before-recheck-before-put-back.json",
          "histories/upgrade-in-memory-leader-failed-before-saga-compensation.json");
}
