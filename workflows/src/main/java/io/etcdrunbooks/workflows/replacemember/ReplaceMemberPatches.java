package io.etcdrunbooks.workflows.replacemember;

import io.etcdrunbooks.workflows.common.Patch;

/** The changes to ReplaceMember since it shipped. */
final class ReplaceMemberPatches {

  private ReplaceMemberPatches() {}

  /**
   * Unreplayed for good: it is asked only in WAITING, which runs only with confirmDownSeconds, a
   * field of the same change; a run started before it has none (0), never asks, and its answer
   * chooses nothing. The ten replace-member histories, all recorded before it, replay without it.
   */
  static final Patch CONFIRM_MEMBER_DOWN =
      Patch.unreplayed(
          "confirm-member-down",
          "2026-11-25",
          "An alert's replacement first watches the member for confirmDownSeconds, so that one"
              + " down only for a reboot is not replaced (ReplacementWatch).");
}
