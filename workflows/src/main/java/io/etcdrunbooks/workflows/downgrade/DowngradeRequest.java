package io.etcdrunbooks.workflows.downgrade;

import io.etcdrunbooks.workflows.common.RunbookOptions;

/**
 * Input of the DowngradeCluster runbook: {@code {"cluster":"prod-1","toVersion":"3.5.35"}}.
 *
 * @param cluster inventory name of the cluster
 * @param toVersion the version every member runs at the end, exactly one minor below the cluster
 *     version (3.5.x from 3.6, 3.6.x from 3.7)
 * @param dryRun plan only
 * @param memberTimeoutSeconds how long one member may take to be healthy after its restart (0: 300
 *     s)
 * @param requireApproval stop after the plan until an operator approves, before etcd's downgrade is
 *     enabled
 */
public record DowngradeRequest(
    String cluster,
    String toVersion,
    boolean dryRun,
    int memberTimeoutSeconds,
    boolean requireApproval) {

  public static DowngradeRequest to(String cluster, String toVersion, RunbookOptions options) {
    return new DowngradeRequest(
        cluster,
        toVersion,
        options.dryRun(),
        options.memberTimeoutSeconds(),
        options.requireApproval());
  }

  public RunbookOptions options() {
    return new RunbookOptions(dryRun, requireApproval, memberTimeoutSeconds, 0);
  }

  public int effectiveMemberTimeoutSeconds() {
    return memberTimeoutSeconds > 0 ? memberTimeoutSeconds : 300;
  }
}
