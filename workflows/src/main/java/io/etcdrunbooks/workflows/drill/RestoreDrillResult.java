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
    List<String> notCompared) {}
