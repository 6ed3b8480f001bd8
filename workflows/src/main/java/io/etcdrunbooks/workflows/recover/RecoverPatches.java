package io.etcdrunbooks.workflows.recover;

import io.etcdrunbooks.workflows.common.Patch;

/** The changes to RecoverQuorum since it shipped, oldest first. */
final class RecoverPatches {

  private RecoverPatches() {}

  static final Patch SURVIVOR_NOT_LEARNER =
      Patch.replayed(
          "survivor-not-learner",
          "2026-11-26",
          "Learners are left out of the survivor's choice.",
          "histories/recover-quorum-3.5.30.json");

  static final Patch APISERVERS_BEFORE_JOIN =
      Patch.replayed(
          "apiservers-before-join",
          "2026-11-26",
          "The kube-apiservers come back on the survivor ahead of JOIN.",
          "histories/recover-quorum-3.5.30.json");

  static final Patch JOIN_HOST_PREFLIGHT =
      Patch.replayed(
          "join-host-preflight",
          "2026-11-26",
          "Each rebuilt member's place (host, directories) is checked in the preflight for JOIN.",
          "histories/recover-quorum-3.5.30.json");

  static final Patch FENCE_LOST_MEMBERS =
      Patch.replayed(
          "fence-lost-members",
          "2026-11-26",
          "Lost members are fenced (RecoverFencing) before the survivor is rebuilt.",
          "histories/recover-quorum-3.5.30.json");

  static final Patch BUMP_REVISION =
      Patch.replayed(
          "recover-bumps-revision",
          "2026-11-26",
          "The survivor is rebuilt with its revision raised (RecoverRevision); before, forced into"
              + " a cluster of one with --force-new-cluster.",
          "histories/recover-quorum-3.5.30-fenced.json",
          "histories/recover-quorum-3.5.30.json");
}
