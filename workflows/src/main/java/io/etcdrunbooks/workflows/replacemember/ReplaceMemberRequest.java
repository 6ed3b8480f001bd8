package io.etcdrunbooks.workflows.replacemember;

import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.model.MemberPlacement;

/**
 * Input of the ReplaceMember runbook, one JSON object so the Temporal Web UI can start it: {@code
 * {"cluster":"prod-1","failedMember":"m2","replacement":{"name":"m4","host":"10.0.0.4",
 * "peerUrl":"https://10.0.0.4:2380","clientUrl":"https://10.0.0.4:2379"}}}.
 *
 * @param cluster inventory name of the cluster
 * @param failedMember inventory name of the member to replace
 * @param replacement where the new member runs; null: on the failed member's host, with a fresh
 *     data dir and a new name (the failed name with {@code -r1}, {@code -r2}, ...)
 * @param force replace the member even though it reports healthy
 * @param requireApproval stop after preflight until an {@code approve} signal arrives, before
 *     anything is removed
 * @param dryRun discover, check and plan only
 * @param memberTimeoutSeconds how long the new member may take to start and catch up (0: 300 s)
 * @param apiServerTimeoutSeconds how long each kube-apiserver may take to be healthy after its
 *     manifest changed (0: 300 s)
 * @param trigger who or what started it, for example "alertmanager: EtcdMemberDown" (shown in
 *     progress)
 * @param confirmDownSeconds the failed member must stay down this long, looked at again every 15 s,
 *     before anything is touched; one that answers healthy again meanwhile ends the runbook (0: no
 *     wait). An alert's automatic start sets it, so a rebooting node is not replaced
 */
public record ReplaceMemberRequest(
    String cluster,
    String failedMember,
    MemberPlacement replacement,
    boolean force,
    boolean requireApproval,
    boolean dryRun,
    int memberTimeoutSeconds,
    int apiServerTimeoutSeconds,
    String trigger,
    int confirmDownSeconds) {

  public static final int DEFAULT_MEMBER_TIMEOUT_SECONDS = 300;

  public static final int DEFAULT_APISERVER_TIMEOUT_SECONDS = 300;

  /**
   * A replacement of the failed member as an alert starts it: same host, fresh data dir, new name.
   */
  public static ReplaceMemberRequest onSameHost(
      String cluster, String failedMember, boolean requireApproval, String trigger) {
    return of(
        cluster,
        failedMember,
        null,
        RunbookOptions.defaults().withApproval(requireApproval),
        trigger);
  }

  public static ReplaceMemberRequest of(
      String cluster,
      String failedMember,
      MemberPlacement replacement,
      RunbookOptions options,
      String trigger) {
    return new ReplaceMemberRequest(
        cluster,
        failedMember,
        replacement,
        false,
        options.requireApproval(),
        options.dryRun(),
        options.memberTimeoutSeconds(),
        options.apiServerTimeoutSeconds(),
        trigger,
        0);
  }

  /** Replaces the member even though it is healthy (a failing disk, say). */
  public ReplaceMemberRequest forced() {
    return withForce(true);
  }

  public ReplaceMemberRequest withForce(boolean on) {
    return new ReplaceMemberRequest(
        cluster,
        failedMember,
        replacement,
        on,
        requireApproval,
        dryRun,
        memberTimeoutSeconds,
        apiServerTimeoutSeconds,
        trigger,
        confirmDownSeconds);
  }

  /** This request waiting until the failed member has been down {@code seconds} before acting. */
  public ReplaceMemberRequest confirmingDownFor(int seconds) {
    return new ReplaceMemberRequest(
        cluster,
        failedMember,
        replacement,
        force,
        requireApproval,
        dryRun,
        memberTimeoutSeconds,
        apiServerTimeoutSeconds,
        trigger,
        seconds);
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
