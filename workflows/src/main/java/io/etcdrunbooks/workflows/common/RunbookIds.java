package io.etcdrunbooks.workflows.common;

import java.util.Optional;

/**
 * Workflow ids. Every runbook that changes a cluster (upgrade, rollback, restore, member
 * replacement) runs under the one id {@link #changing}: Temporal refuses to start a second workflow
 * with the id of a running one, so a cluster has one change at a time whichever API, bot or worker
 * starts it. A changing runbook started under another id (from the Temporal Web UI or CLI, say)
 * refuses to run ({@link #whyNotChangeId}), so the rule holds whoever starts it. Dry runs and
 * backups change nothing and have ids of their own.
 */
public final class RunbookIds {

  private RunbookIds() {}

  public static String changing(String cluster) {
    return "change-" + cluster;
  }

  /**
   * Why a runbook that changes the cluster must not run under this workflow id, or empty when it
   * may: under the cluster's change id, or as a child of the workflow holding it (a rollback's
   * restore runs as {@code change-<cluster>-restore}). A blank cluster is left to the runbook's own
   * input checks.
   *
   * @param runbook the runbook's type, for example UpgradeCluster
   * @param parentWorkflowId the parent's workflow id, null when it was started on its own
   */
  public static Optional<String> whyNotChangeId(
      String runbook, String cluster, String workflowId, String parentWorkflowId) {
    if (cluster == null || cluster.isBlank()) return Optional.empty();
    String changeId = changing(cluster);
    if (changeId.equals(workflowId) || changeId.equals(parentWorkflowId)) return Optional.empty();
    return Optional.of(
        ("%s of cluster '%s' refused, nothing was touched: it runs under workflow id '%s'%s, but a"
                + " runbook that changes a cluster runs only under the cluster's change id, so that"
                + " Temporal refuses a second change of the cluster while one runs. Start it again"
                + " with workflow id %s; dry runs may use any id")
            .formatted(
                runbook,
                cluster,
                workflowId,
                parentWorkflowId == null ? "" : " (child of '" + parentWorkflowId + "')",
                changeId));
  }
}
