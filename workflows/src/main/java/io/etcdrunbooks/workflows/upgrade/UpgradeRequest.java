package io.etcdrunbooks.workflows.upgrade;

import io.etcdrunbooks.workflows.common.RunbookOptions;

/**
 * Input of the UpgradeCluster runbook, one JSON object so the Temporal Web UI can start it: {@code
 * {"cluster":"sandbox","targetVersion":"3.5.30","dryRun":false}}.
 *
 * @param cluster inventory name of the cluster
 * @param targetVersion etcd version to end on, major.minor.patch
 * @param dryRun discover, check and plan only; touch nothing
 * @param memberTimeoutSeconds how long one member may take to be healthy and caught up after its
 *     restart (0: 300 s; raise it for clusters with a lot of v2 data)
 * @param requireApproval stop after the plan until an operator approves, before the backup and the
 *     first member
 */
public record UpgradeRequest(
    String cluster,
    String targetVersion,
    boolean dryRun,
    int memberTimeoutSeconds,
    boolean requireApproval) {

  public static final int DEFAULT_MEMBER_TIMEOUT_SECONDS = 300;

  public static UpgradeRequest to(String cluster, String targetVersion, RunbookOptions options) {
    return new UpgradeRequest(
        cluster,
        targetVersion,
        options.dryRun(),
        options.memberTimeoutSeconds(),
        options.requireApproval());
  }

  public RunbookOptions options() {
    return new RunbookOptions(dryRun, requireApproval, memberTimeoutSeconds, 0);
  }

  public int effectiveMemberTimeoutSeconds() {
    return memberTimeoutSeconds > 0 ? memberTimeoutSeconds : DEFAULT_MEMBER_TIMEOUT_SECONDS;
  }
}
