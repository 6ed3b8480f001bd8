package io.etcdrunbooks.workflows.restore;

import io.etcdrunbooks.workflows.common.RunbookOptions;

/**
 * Input of the RestoreCluster runbook, one JSON object so the Temporal Web UI can start it: {@code
 * {"cluster":"prod-1","backupId":"latest","acknowledgeDataLoss":true}}.
 *
 * @param cluster inventory name of the cluster
 * @param backupId the backup to restore; empty or "latest": the newest kept backup whose file is
 *     whole
 * @param acknowledgeDataLoss must be true: every write after the backup is lost, and the runbook
 *     refuses without it
 * @param etcdVersion version every member runs after the restore; empty: the version installed on
 *     each member
 * @param dryRun check the backup and the hosts, plan, touch nothing
 * @param memberTimeoutSeconds how long the restored members may take to be healthy (0: 300 s)
 * @param apiServerTimeoutSeconds how long each kube-apiserver may take to go and to come back (0:
 *     300 s)
 * @param takenOnMinor with backupId "latest": the newest backup taken on this minor version, for
 *     example 3.4 (empty: any)
 * @param requireApproval stop after preflight until an operator approves, before anything is
 *     stopped
 * @param acknowledgeRevisionsBackward restore even when no tool that raises the revision can be had
 *     (etcdutl 3.5.10 or later): the revision then goes back to the backup's, and every watcher
 *     holding a newer resourceVersion misses events until it relists
 */
public record RestoreRequest(
    String cluster,
    String backupId,
    boolean acknowledgeDataLoss,
    String etcdVersion,
    boolean dryRun,
    int memberTimeoutSeconds,
    int apiServerTimeoutSeconds,
    String takenOnMinor,
    boolean requireApproval,
    boolean acknowledgeRevisionsBackward) {

  /**
   * A restore of the backup onto the backup's own etcd version; loses data only once acknowledged.
   */
  public static RestoreRequest of(String cluster, String backupId, RunbookOptions options) {
    return new RestoreRequest(
        cluster,
        backupId,
        false,
        null,
        options.dryRun(),
        options.memberTimeoutSeconds(),
        options.apiServerTimeoutSeconds(),
        "",
        options.requireApproval(),
        false);
  }

  /** Every write since the backup is lost: a restore runs only with this. */
  public RestoreRequest acknowledgingDataLoss() {
    return withDataLossAcknowledged(true);
  }

  public RestoreRequest withDataLossAcknowledged(boolean acknowledged) {
    return new RestoreRequest(
        cluster,
        backupId,
        acknowledged,
        etcdVersion,
        dryRun,
        memberTimeoutSeconds,
        apiServerTimeoutSeconds,
        takenOnMinor,
        requireApproval,
        acknowledgeRevisionsBackward);
  }

  /** The etcd version to run after the restore (null: the backup's). */
  public RestoreRequest withEtcdVersion(String version) {
    return new RestoreRequest(
        cluster,
        backupId,
        acknowledgeDataLoss,
        version,
        dryRun,
        memberTimeoutSeconds,
        apiServerTimeoutSeconds,
        takenOnMinor,
        requireApproval,
        acknowledgeRevisionsBackward);
  }

  /** The minor the backup was taken on, when the caller knows it (a rollback does). */
  public RestoreRequest withTakenOnMinor(String minor) {
    return new RestoreRequest(
        cluster,
        backupId,
        acknowledgeDataLoss,
        etcdVersion,
        dryRun,
        memberTimeoutSeconds,
        apiServerTimeoutSeconds,
        minor,
        requireApproval,
        acknowledgeRevisionsBackward);
  }

  /** The revision may go back to the backup's when no tool can raise it. */
  public RestoreRequest withRevisionsBackwardAcknowledged(boolean acknowledged) {
    return new RestoreRequest(
        cluster,
        backupId,
        acknowledgeDataLoss,
        etcdVersion,
        dryRun,
        memberTimeoutSeconds,
        apiServerTimeoutSeconds,
        takenOnMinor,
        requireApproval,
        acknowledged);
  }

  public RunbookOptions options() {
    return new RunbookOptions(
        dryRun, requireApproval, memberTimeoutSeconds, apiServerTimeoutSeconds);
  }

  public int effectiveMemberTimeoutSeconds() {
    return memberTimeoutSeconds > 0 ? memberTimeoutSeconds : 300;
  }

  public int effectiveApiServerTimeoutSeconds() {
    return apiServerTimeoutSeconds > 0 ? apiServerTimeoutSeconds : 300;
  }
}
