package io.etcdrunbooks.workflows.rollback;

import java.util.List;
import java.util.Map;

/**
 * Outcome of a RollbackCluster runbook.
 *
 * @param cluster cluster name
 * @param toVersion the version every member runs now (or would, on a dry run)
 * @param membersToRollBack members that ran a newer version, in the order they were (or would be)
 *     switched
 * @param memberVersions each member's server version at the end
 * @param clusterVersion cluster version at the end
 * @param dryRun nothing was touched
 * @param restoredBackupId the backup restored when the cluster version had moved ("" for a rollback
 *     without restore)
 * @param lostRevisions what that restore lost ("" without restore)
 */
public record RollbackResult(
    String cluster,
    String toVersion,
    List<String> membersToRollBack,
    Map<String, String> memberVersions,
    String clusterVersion,
    boolean dryRun,
    String restoredBackupId,
    String lostRevisions) {}
