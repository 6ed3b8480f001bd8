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
}
