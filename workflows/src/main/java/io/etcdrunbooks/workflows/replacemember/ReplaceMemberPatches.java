package io.etcdrunbooks.workflows.replacemember;

import io.etcdrunbooks.workflows.common.Patch;

/** The changes to ReplaceMember since it shipped. */
final class ReplaceMemberPatches {

  private ReplaceMemberPatches() {}

  static final Patch CONFIRM_MEMBER_DOWN =
      Patch.unreplayed(
          "confirm-member-down",
          "2026-11-25",
          "An alert's replacement first watches the member for confirmDownSeconds, so that one"
              + " down only for a reboot is not replaced (ReplacementWatch).");
}
