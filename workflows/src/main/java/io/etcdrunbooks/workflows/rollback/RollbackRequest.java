package io.etcdrunbooks.workflows.rollback;

import io.etcdrunbooks.workflows.common.RunbookOptions;

/**
 * Input of the RollbackCluster runbook: {@code {"cluster":"prod-1","toVersion":"3.4.23"}}.
 *
 * @param cluster inventory name of the cluster
 * @param toVersion version every member goes back to; empty: the oldest version running (the one an
 *     interrupted upgrade left behind)
 * @param dryRun plan only
 * @param memberTimeoutSeconds how long one member may take to be healthy after its restart (0: 300
 *     s)
 * @param acknowledgeDataLoss once the cluster version has moved, the only way back is restoring the
 *     pre-upgrade backup with the old binaries, which loses every write since: the rollback does
 *     that only when this is true
 * @param backupId the backup to restore then; empty: the newest backup taken on toVersion's minor
 *     version
 * @param requireApproval stop after the plan until an operator approves, before the first member or
 *     the restore
 * @param acknowledgeRevisionsBackward restore even when no tool that raises the revision can be had
 *     (RestoreCluster's acknowledgement of the same name, passed to its child run): watchers that
 *     saw newer revisions, every kube-apiserver first, must then be restarted
 */
public record RollbackRequest(
    String cluster,
    String toVersion,
    boolean dryRun,
    int memberTimeoutSeconds,
    boolean acknowledgeDataLoss,
    String backupId,
    boolean requireApproval,
    boolean acknowledgeRevisionsBackward) {

  /** A rollback of a mixed cluster, which never loses data. */
  public static RollbackRequest to(String cluster, String toVersion, RunbookOptions options) {
    return new RollbackRequest(
        cluster,
        toVersion,
        options.dryRun(),
        options.memberTimeoutSeconds(),
        false,
        "",
        options.requireApproval(),
        false);
  }

  /** Also past the cluster version, through a restore: the writes since the backup are lost. */
  public RollbackRequest acknowledgingDataLoss() {
    return withDataLossAcknowledged(true);
  }

  public RollbackRequest withDataLossAcknowledged(boolean acknowledged) {
    return new RollbackRequest(
        cluster,
        toVersion,
        dryRun,
        memberTimeoutSeconds,
        acknowledged,
        backupId,
        requireApproval,
        acknowledgeRevisionsBackward);
  }

  /** The backup a rollback past the cluster version restores ("" or null: the newest fitting). */
  public RollbackRequest withBackupId(String id) {
    return new RollbackRequest(
        cluster,
        toVersion,
        dryRun,
        memberTimeoutSeconds,
        acknowledgeDataLoss,
        id,
        requireApproval,
        acknowledgeRevisionsBackward);
  }

  /** See {@code acknowledgeRevisionsBackward}. */
  public RollbackRequest withRevisionsBackwardAcknowledged(boolean acknowledged) {
    return new RollbackRequest(
        cluster,
        toVersion,
        dryRun,
        memberTimeoutSeconds,
        acknowledgeDataLoss,
        backupId,
        requireApproval,
        acknowledged);
  }

  public RunbookOptions options() {
    return new RunbookOptions(dryRun, requireApproval, memberTimeoutSeconds, 0);
  }

  public int effectiveMemberTimeoutSeconds() {
    return memberTimeoutSeconds > 0 ? memberTimeoutSeconds : 300;
  }
}
