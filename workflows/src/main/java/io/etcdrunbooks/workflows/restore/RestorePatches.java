package io.etcdrunbooks.workflows.restore;

import io.etcdrunbooks.workflows.common.Patch;

/** The changes to RestoreCluster since it shipped. */
final class RestorePatches {

  private RestorePatches() {}

  static final Patch RESTORE_TOOL_BUMPS =
      Patch.replayed(
          "restore-tool-bumps",
          "2026-11-26",
          "Members whose own etcdutl cannot raise the revision are restored with a 3.5.10+ one from"
              + " the binary source; without one, refused unless acknowledgeRevisionsBackward.",
          "histories/restore-3.5.16-two-of-three-destroyed-id-and-hosts-checked.json",
          "histories/restore-3.5.16-two-of-three-destroyed.json");

  static final Patch TRANSLATE_FLAGS =
      Patch.unreplayed(
          "restore-translate-flags",
          "2026-11-27",
          "With etcdVersion, each member's flags are translated for it where they live"
              + " (FlagTranslations: a 3.6 --feature-gates split into 3.5 flags, new names back to"
              + " old ones), checked in the preflight and written after the install.");

  static final Patch NEW_HOSTS =
      Patch.unreplayed(
          "restore-new-hosts",
          "2026-11-27",
          "With newMembers, the backup is restored onto those hosts as a new cluster (checked"
              + " free first, prepared as new members, the inventory and every kube-apiserver's"
              + " --etcd-servers moved to them), the old members left running.");

  static final Patch RESTART_CONTROLLERS =
      Patch.replayed(
          "restore-restart-controllers",
          "2026-11-27",
          "After the kube-apiservers are back, kube-controller-manager and kube-scheduler are"
              + " restarted on every control-plane host (their manifests moved out and back), and"
              + " the result names the kubelets to restart.",
          "histories/restore-3.5.16-two-of-three-destroyed-id-and-hosts-checked.json",
          "histories/restore-3.5.16-two-of-three-destroyed.json");

  static final Patch ENCRYPTION_CONFIG =
      Patch.replayed(
          "restore-encryption-config",
          "2026-11-27",
          "The preflight compares the kube-apiserver EncryptionConfiguration key names the backup"
              + " recorded with each control-plane host's file and refuses when keys are missing,"
              + " unless putBackEncryptionConfig: then the backup's copy is written before each"
              + " apiserver starts.",
          "histories/restore-3.5.16-two-of-three-destroyed-id-and-hosts-checked.json",
          "histories/restore-3.5.16-two-of-three-destroyed.json");
}
