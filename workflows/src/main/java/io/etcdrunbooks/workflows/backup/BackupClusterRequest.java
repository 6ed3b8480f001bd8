package io.etcdrunbooks.workflows.backup;

import io.etcdrunbooks.workflows.common.RunbookOptions;

/**
 * Input of the BackupCluster runbook, one JSON object so the Temporal Web UI can start it: {@code
 * {"cluster":"prod-1","reason":"nightly"}}.
 *
 * @param cluster inventory name of the cluster
 * @param reason why the backup is taken, for the runbook's history and progress (may be empty)
 * @param requireApproval wait for an operator's approve before the backup is taken
 */
public record BackupClusterRequest(String cluster, String reason, boolean requireApproval) {

  public static BackupClusterRequest of(String cluster, String reason, RunbookOptions options) {
    return new BackupClusterRequest(cluster, reason, options.requireApproval());
  }
}
