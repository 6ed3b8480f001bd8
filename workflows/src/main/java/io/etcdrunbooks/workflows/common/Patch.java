package io.etcdrunbooks.workflows.common;

import io.temporal.workflow.Workflow;
import java.util.List;

/**
 * A change to a shipped runbook behind a Temporal version marker: runs recorded before it replay
 * the old branch. Each lives as a constant in its runbook's registry ({@code UpgradePatches},
 * {@code RecoverPatches}, ...; the shared phases' in {@code PhasePatches}, every runbook's in
 * {@link RunbookPatches}) and is asked only through {@link #applies()}, never with a bare
 * Workflow.getVersion. docs/development/patches.md says when an old branch may go.
 *
 * @param id the change id recorded in the marker; never changes once shipped
 * @param shipped the day the change was first committed (yyyy-mm-dd; a string, so that no date
 *     parser runs in a workflow thread when a registry is first read)
 * @param change what the new branch does that the old one did not
 * @param oldBranchHistories the recorded histories (test resources, replayed by the runbook's
 *     replay test) that take the old branch: exactly these fail to replay once it is deleted.
 *     Empty: no recorded history covers the old branch, so nothing checks it still replays.
 */
public record Patch(String id, String shipped, String change, List<String> oldBranchHistories) {

  public Patch {
    if (id == null || id.isBlank()) throw new IllegalArgumentException("a patch needs a change id");
    oldBranchHistories = List.copyOf(oldBranchHistories);
  }

  /** A change whose old branch the named recorded histories replay. */
  public static Patch replayed(String id, String shipped, String change, String... histories) {
    if (histories.length == 0) {
      throw new IllegalArgumentException(id + ": name its histories or make it unreplayed");
    }
    return new Patch(id, shipped, change, List.of(histories));
  }

  /** A change whose old branch no recorded history takes. */
  public static Patch unreplayed(String id, String shipped, String change) {
    return new Patch(id, shipped, change, List.of());
  }

  /**
   * Whether this run takes the new branch: true for runs started since the change (the marker is
   * recorded the first time it is asked), false for runs whose history has no marker where it is
   * asked. Deterministic: ask it at the same point of the run as before.
   */
  public boolean applies() {
    return Workflow.getVersion(id, Workflow.DEFAULT_VERSION, 1) >= 1;
  }
}
