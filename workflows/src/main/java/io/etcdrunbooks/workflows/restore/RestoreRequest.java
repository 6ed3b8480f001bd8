package io.etcdrunbooks.workflows.restore;

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
    boolean requireApproval) {

  public RestoreRequest(
      String cluster,
      String backupId,
      boolean acknowledgeDataLoss,
      String etcdVersion,
      boolean dryRun,
      int memberTimeoutSeconds,
      int apiServerTimeoutSeconds) {
    this(
        cluster,
        backupId,
        acknowledgeDataLoss,
        etcdVersion,
        dryRun,
        memberTimeoutSeconds,
        apiServerTimeoutSeconds,
        "");
  }

  public RestoreRequest(
      String cluster,
      String backupId,
      boolean acknowledgeDataLoss,
      String etcdVersion,
      boolean dryRun,
      int memberTimeoutSeconds,
      int apiServerTimeoutSeconds,
      String takenOnMinor) {
    this(
        cluster,
        backupId,
        acknowledgeDataLoss,
        etcdVersion,
        dryRun,
        memberTimeoutSeconds,
        apiServerTimeoutSeconds,
        takenOnMinor,
        false);
  }

  public int effectiveMemberTimeoutSeconds() {
    return memberTimeoutSeconds > 0 ? memberTimeoutSeconds : 300;
  }

  public int effectiveApiServerTimeoutSeconds() {
    return apiServerTimeoutSeconds > 0 ? apiServerTimeoutSeconds : 300;
  }
}
