package io.etcdrunbooks.workflows.upgrade;

import io.etcdrunbooks.workflows.common.Patch;

/** The changes to UpgradeCluster since it shipped, oldest first. */
final class UpgradePatches {

  private UpgradePatches() {}

  static final Patch SAGA_COMPENSATION =
      Patch.replayed(
          "saga-compensation",
          "2026-11-23",
          "Compensation puts members back through the registered undos, newest first; before, the"
              + " failed member first, then the others in the order they were switched.",
          "histories/upgrade-in-memory-leader-failed-before-saga-compensation.json");

  static final Patch TRANSITION_RULES =
      Patch.replayed(
          "transition-rules",
          "2026-11-23",
          "The preflight holds the ladder to etcd's transition rules (v2 data before 3.4 or 3.6,"
              + " an unreadable v2 store) before anything is touched (TransitionRules).",
          "histories/upgrade-3.3.25-to-3.5.30-id-and-hosts-checked.json",
          "histories/upgrade-3.3.25-to-3.5.30.json",
          "histories/upgrade-3.4.23-to-3.5.16-approved.json",
          "histories/upgrade-3.5.16-to-3.5.30-cancelled-mid-member.json",
          "histories/upgrade-in-memory-leader-failed-before-saga-compensation.json");

  static final Patch HELP_CHECK =
      Patch.replayed(
          "flags-against-target-help",
          "2026-11-24",
          "The preflight holds every member's flags to the target binary's own --help.",
          "histories/upgrade-in-memory-last-member-not-ready-before-degraded-ending.json",
          "histories/upgrade-in-memory-leader-failed-before-recheck-before-put-back.json");

  static final Patch APISERVER_BACKENDS =
      Patch.replayed(
          "apiserver-storage-backend",
          "2026-11-24",
          "A kube-apiserver reading etcd2 refuses an upgrade into 3.4 or 3.6, naming the host and"
              + " MigrateV2ToV3.",
          "histories/upgrade-3.3.25-to-3.5.30-id-and-hosts-checked.json",
          "histories/upgrade-3.3.25-to-3.5.30.json");

  static final Patch DEGRADED_ENDING =
      Patch.replayed(
          "upgraded-member-degraded",
          "2026-11-24",
          "A failed member that is the only one not well after the cluster version moved ends"
              + " UpgradedMemberDegraded: nothing is put back, the member is named with its log.",
          "histories/upgrade-in-memory-last-member-not-ready-before-degraded-ending.json");

  static final Patch RECHECK_BEFORE_PUT_BACK =
      Patch.replayed(
          "recheck-cluster-version-before-put-back",
          "2026-11-24",
          "Compensation reads the cluster version again before each member it puts back and stops"
              + " when it moved meanwhile.",
          "histories/upgrade-in-memory-leader-failed-before-recheck-before-put-back.json");

  static final Patch STAGE_BINARIES =
      Patch.replayed(
          "stage-binaries",
          "2026-11-25",
          "The target's binaries are staged on every member's host before the first stop.",
          "histories/upgrade-3.3.25-to-3.5.30-id-and-hosts-checked.json",
          "histories/upgrade-3.3.25-to-3.5.30.json",
          "histories/upgrade-3.4.23-to-3.5.16-approved.json",
          "histories/upgrade-3.5.16-to-3.5.30-cancelled-mid-member.json",
          "histories/upgrade-in-memory-last-member-not-ready-before-degraded-ending.json",
          "histories/upgrade-in-memory-leader-failed-before-recheck-before-put-back.json",
          "histories/upgrade-in-memory-leader-failed-before-saga-compensation.json");

  static final Patch PARALLEL_READS =
      Patch.replayed(
          "preflight-reads-in-parallel",
          "2026-11-25",
          "The preflight reads the members' flags on their hosts all at once, not in turn.",
          "histories/upgrade-in-memory-flags-unreadable-before-preflight-reads-in-parallel.json",
          "histories/upgrade-in-memory-last-member-not-ready-before-degraded-ending.json",
          "histories/upgrade-in-memory-leader-failed-before-recheck-before-put-back.json");

  static final Patch OVERLAPPED_CHECKS =
      Patch.replayed(
          "overlapped-checks",
          "2026-11-26",
          "Reads that do not depend on each other run at once: the preflight's, the staging beside"
              + " the backup, the postflight's hashkv and keyspace reads during the cluster version"
              + " wait.",
          "histories/upgrade-3.3.25-to-3.5.30-id-and-hosts-checked.json",
          "histories/upgrade-3.3.25-to-3.5.30-staged-and-watched.json",
          "histories/upgrade-3.3.25-to-3.5.30.json",
          "histories/upgrade-3.4.23-to-3.5.16-approved.json",
          "histories/upgrade-3.5.16-to-3.5.30-cancelled-mid-member.json",
          "histories/upgrade-in-memory-flags-unreadable-before-preflight-reads-in-parallel.json",
          "histories/upgrade-in-memory-last-member-not-ready-before-degraded-ending.json",
          "histories/upgrade-in-memory-leader-failed-before-recheck-before-put-back.json",
          "histories/upgrade-in-memory-leader-failed-before-saga-compensation.json");

  static final Patch KEYSPACE_BESIDE_BACKUP =
      Patch.replayed(
          "keyspace-beside-backup",
          "2026-11-26",
          "The keyspace and every member's hashkv are read beside the backup at discovery's"
              + " revision; the postflight reads the keyspace again only when the hashes differ.",
          "histories/upgrade-3.3.25-to-3.5.30-id-and-hosts-checked.json",
          "histories/upgrade-3.3.25-to-3.5.30-restart-in-one-activity.json",
          "histories/upgrade-3.3.25-to-3.5.30-staged-and-watched.json",
          "histories/upgrade-3.3.25-to-3.5.30.json",
          "histories/upgrade-3.4.23-to-3.5.16-approved.json",
          "histories/upgrade-3.5.16-to-3.5.30-cancelled-mid-member.json",
          "histories/upgrade-in-memory-last-member-not-ready-before-degraded-ending.json",
          "histories/upgrade-in-memory-leader-failed-before-recheck-before-put-back.json",
          "histories/upgrade-in-memory-leader-failed-before-saga-compensation.json");

  static final Patch REUSE_RESTART_READS =
      Patch.replayed(
          "reuse-restart-reads",
          "2026-11-26",
          "A member's checks start from the cluster its predecessor's restart read once it was"
              + " ready, instead of a discovery of their own.",
          "histories/upgrade-3.3.25-to-3.5.30-id-and-hosts-checked.json",
          "histories/upgrade-3.3.25-to-3.5.30-restart-in-one-activity.json",
          "histories/upgrade-3.3.25-to-3.5.30-staged-and-watched.json",
          "histories/upgrade-3.3.25-to-3.5.30.json",
          "histories/upgrade-3.4.23-to-3.5.16-approved.json",
          "histories/upgrade-in-memory-last-member-not-ready-before-degraded-ending.json",
          "histories/upgrade-in-memory-leader-failed-before-recheck-before-put-back.json",
          "histories/upgrade-in-memory-leader-failed-before-saga-compensation.json");

  /**
   * A hashkv holds the member's backend read lock for its whole scan and the member's writes wait
   * for it (260-385 ms on a 1.3 GB keyspace here); see {@link UpgradeRun#fewerHashScans}.
   */
  static final Patch FEWER_HASH_SCANS =
      Patch.replayed(
          "fewer-hash-scans",
          "2026-11-26",
          "Each member's hashkv is scanned once before and once after the upgrade, not again by"
              + " the preflight, the backup phase and the postflight.",
          "histories/upgrade-3.3.25-to-3.5.30-restart-in-one-activity.json",
          "histories/upgrade-3.3.25-to-3.5.30-restart-reads-reused.json");

  static final Patch IMAGE_TAGS =
      Patch.replayed(
          "image-tags",
          "2026-11-26",
          "The preflight reads which versions a static pod's image repository serves, and a"
              + " refusal names the missing tag.",
          "histories/upgrade-3.3.25-to-3.5.30-id-and-hosts-checked.json",
          "histories/upgrade-3.3.25-to-3.5.30-restart-in-one-activity.json",
          "histories/upgrade-3.3.25-to-3.5.30-restart-reads-reused.json",
          "histories/upgrade-3.3.25-to-3.5.30-staged-and-watched.json",
          "histories/upgrade-3.3.25-to-3.5.30.json",
          "histories/upgrade-3.4.23-to-3.5.16-approved.json",
          "histories/upgrade-3.5.16-to-3.5.30-cancelled-mid-member.json",
          "histories/upgrade-in-memory-flags-unreadable-before-preflight-reads-in-parallel.json",
          "histories/upgrade-in-memory-last-member-not-ready-before-degraded-ending.json",
          "histories/upgrade-in-memory-leader-failed-before-recheck-before-put-back.json",
          "histories/upgrade-in-memory-leader-failed-before-saga-compensation.json");

  /** Asked only on a rung from 3.6 to 3.7, which no run before it reached. */
  static final Patch SNAPSHOT_BEFORE_3_7 =
      Patch.unreplayed(
          "snapshot-before-3.7",
          "2026-11-27",
          "Before a member moves from 3.6 to 3.7, its newest raft snapshot is made to cover every"
              + " entry 3.5 wrote (SnapshotBefore37): 3.7 cannot replay them.");

  static final Patch RUNG_RULES =
      Patch.replayed(
          "rung-rules",
          "2026-11-27",
          "The preflight and each rung refuse members etcd lists beyond the inventory (a leftover"
              + " learner, a removed member that reappeared), and each rung into a new minor a member"
              + " that reports a version below the minimum etcd asks for (RungRules).",
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
