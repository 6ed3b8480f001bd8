package io.etcdrunbooks.workflows.scale;

import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import java.util.List;

/**
 * Input of the ScaleCluster runbook, one JSON object so the Temporal Web UI can start it: {@code
 * {"cluster":"prod-1","targetSize":5,"newMembers":[{"name":"m4","host":"10.0.0.4",
 * "peerUrl":"https://10.0.0.4:2380","clientUrl":"https://10.0.0.4:2379"},{...}]}} to grow, {@code
 * {"cluster":"prod-1","targetSize":3}} to shrink.
 *
 * @param targetSize the number of members the cluster ends with: odd, 3 or more
 * @param newMembers growing: where each new member runs (name, host, peerUrl and clientUrl; paths
 *     left empty are the first inventory member's). Members already in the inventory with the same
 *     peer URL count as added (a run started again after a failure)
 * @param removeMembers shrinking: the inventory members to remove; empty: chosen by the runbook
 *     (members that do not answer first, then followers from the end of the inventory, the leader
 *     last). Named members no longer in the inventory count as removed
 * @param memberTimeoutSeconds how long each new member may take to start and catch up (0: 300 s)
 * @param apiServerTimeoutSeconds how long each kube-apiserver may take to be healthy after its
 *     manifest changed (0: 300 s)
 */
public record ScaleClusterRequest(
    String cluster,
    int targetSize,
    List<MemberPlacement> newMembers,
    List<String> removeMembers,
    boolean requireApproval,
    boolean dryRun,
    int memberTimeoutSeconds,
    int apiServerTimeoutSeconds) {

  public static final int DEFAULT_MEMBER_TIMEOUT_SECONDS = 300;
  public static final int DEFAULT_APISERVER_TIMEOUT_SECONDS = 300;

  public ScaleClusterRequest {
    newMembers = newMembers == null ? List.of() : List.copyOf(newMembers);
    removeMembers = removeMembers == null ? List.of() : List.copyOf(removeMembers);
  }

  /** Grows the cluster to {@code targetSize} with these new members. */
  public static ScaleClusterRequest growing(
      String cluster, int targetSize, List<MemberPlacement> newMembers, RunbookOptions options) {
    return new ScaleClusterRequest(
        cluster,
        targetSize,
        newMembers,
        List.of(),
        options.requireApproval(),
        options.dryRun(),
        options.memberTimeoutSeconds(),
        options.apiServerTimeoutSeconds());
  }

  /** Shrinks the cluster to {@code targetSize}, the runbook choosing the members to remove. */
  public static ScaleClusterRequest shrinking(
      String cluster, int targetSize, RunbookOptions options) {
    return growing(cluster, targetSize, List.of(), options);
  }

  /** This request removing exactly these members. */
  public ScaleClusterRequest removing(List<String> members) {
    return new ScaleClusterRequest(
        cluster,
        targetSize,
        newMembers,
        members,
        requireApproval,
        dryRun,
        memberTimeoutSeconds,
        apiServerTimeoutSeconds);
  }

  public RunbookOptions options() {
    return new RunbookOptions(
        dryRun, requireApproval, memberTimeoutSeconds, apiServerTimeoutSeconds);
  }

  public int effectiveMemberTimeoutSeconds() {
    return memberTimeoutSeconds > 0 ? memberTimeoutSeconds : DEFAULT_MEMBER_TIMEOUT_SECONDS;
  }

  public int effectiveApiServerTimeoutSeconds() {
    return apiServerTimeoutSeconds > 0
        ? apiServerTimeoutSeconds
        : DEFAULT_APISERVER_TIMEOUT_SECONDS;
  }
}
