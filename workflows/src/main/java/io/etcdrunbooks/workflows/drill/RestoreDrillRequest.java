package io.etcdrunbooks.workflows.drill;

/**
 * Input of the RestoreDrill runbook, one JSON object so the Temporal Web UI and a schedule can
 * start it: {@code {"cluster":"prod-1"}}.
 *
 * @param cluster inventory name of the cluster
 * @param backupId the backup to drill; empty, null or "latest": the newest kept backup whose file
 *     is whole
 */
public record RestoreDrillRequest(String cluster, String backupId) {

  public static RestoreDrillRequest newest(String cluster) {
    return new RestoreDrillRequest(cluster, "");
  }

  public RestoreDrillRequest withBackupId(String id) {
    return new RestoreDrillRequest(cluster, id);
  }
}
