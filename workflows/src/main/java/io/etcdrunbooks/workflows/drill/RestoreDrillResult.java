package io.etcdrunbooks.workflows.drill;

import io.etcdrunbooks.workflows.model.KeyspaceHash;
import java.util.List;

/**
 * What a restore drill found: the backup's recorded values beside what its restored copy served.
 *
 * @param target where the backup came from: {@code local} or {@code object_store}
 * @param tool the tool that restored it, with its version ("etcdutl 3.5.30")
 * @param expectedLiveKeys 0 when the backup recorded none
 * @param expectedKeyspaceHash null when the backup recorded none (older backups)
 * @param differences what differed, in words; empty when it passed
 * @param notCompared what the backup did not record, so was not compared
 * @param targets one entry per target drilled: every target the cluster has when no backupId was
 *     asked, else the one the backup came from; the fields above are the first entry's
 */
public record RestoreDrillResult(
    String cluster,
    String backupId,
    String target,
    String etcdVersion,
    String tool,
    long expectedRevision,
    long actualRevision,
    long expectedLiveKeys,
    long actualLiveKeys,
    KeyspaceHash expectedKeyspaceHash,
    KeyspaceHash actualKeyspaceHash,
    boolean passed,
    List<String> differences,
    List<String> notCompared,
    List<Target> targets) {

  /** The drill of one target's copy. */
  public record Target(String target, String backupId, boolean passed, List<String> differences) {}

  RestoreDrillResult withTargets(List<Target> all) {
    return new RestoreDrillResult(
        cluster,
        backupId,
        target,
        etcdVersion,
        tool,
        expectedRevision,
        actualRevision,
        expectedLiveKeys,
        actualLiveKeys,
        expectedKeyspaceHash,
        actualKeyspaceHash,
        passed,
        differences,
        notCompared,
        List.copyOf(all));
  }
}
