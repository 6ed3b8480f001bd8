package io.etcdrunbooks.workflows.migrate;

import io.etcdrunbooks.workflows.common.RunbookOptions;

/**
 * Input of the MigrateV2ToV3 runbook, one JSON object so the Temporal Web UI can start it: {@code
 * {"cluster":"prod-1"}}.
 *
 * @param cluster inventory name of the cluster
 * @param dryRun survey and plan, touch nothing
 * @param requireApproval stop after the plan until an operator approves, before anything is stopped
 * @param memberTimeoutSeconds how long each member may take to be healthy again (0: 300 s)
 * @param apiServerTimeoutSeconds how long each kube-apiserver may take to go and to come back (0:
 *     300 s)
 */
public record MigrateRequest(
    String cluster,
    boolean dryRun,
    boolean requireApproval,
    int memberTimeoutSeconds,
    int apiServerTimeoutSeconds) {

  public static MigrateRequest of(String cluster, RunbookOptions options) {
    return new MigrateRequest(
        cluster,
        options.dryRun(),
        options.requireApproval(),
        options.memberTimeoutSeconds(),
        options.apiServerTimeoutSeconds());
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
