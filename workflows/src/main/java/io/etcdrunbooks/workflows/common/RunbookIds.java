package io.etcdrunbooks.workflows.common;

/**
 * Workflow ids. Every runbook that changes a cluster (upgrade, rollback, restore, member replacement) runs under the
 * one id {@link #changing}: Temporal refuses to start a second workflow with the id of a running one, so a cluster has
 * one change at a time whichever API, bot or worker starts it. Dry runs and backups change nothing and have ids of
 * their own.
 */
public final class RunbookIds {

  private RunbookIds() {}

  public static String changing(String cluster) {
    return "change-" + cluster;
  }
}
