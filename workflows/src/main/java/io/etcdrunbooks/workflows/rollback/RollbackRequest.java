package io.etcdrunbooks.workflows.rollback;

/**
 * Input of the RollbackCluster runbook: {@code {"cluster":"prod-1","toVersion":"3.4.23"}}.
 *
 * @param cluster inventory name of the cluster
 * @param toVersion version every member goes back to; empty: the oldest version running (the one an interrupted
 *     upgrade left behind)
 * @param dryRun plan only
 * @param memberTimeoutSeconds how long one member may take to be healthy after its restart (0: 300 s)
 */
public record RollbackRequest(String cluster, String toVersion, boolean dryRun, int memberTimeoutSeconds) {

  public int effectiveMemberTimeoutSeconds() {
    return memberTimeoutSeconds > 0 ? memberTimeoutSeconds : 300;
  }
}
