package io.etcdrunbooks.api;

import java.util.List;

/**
 * What the Alertmanager webhook did with one alert.
 *
 * @param alertname the alert's {@code alertname} label
 * @param cluster the cluster label's value
 * @param member the inventory member name when the member label resolved to one, else the label's
 *     value
 * @param outcome {@code started}, {@code already-running} (this member's replacement runs), {@code
 *     member-healthy} (etcd says now that the member is healthy: nothing started), {@code
 *     duplicate} (this alert, by fingerprint, started a runbook within
 *     runbooks.alerts.dedupe-minutes), {@code busy} (another change of the cluster runs; may
 *     succeed when Alertmanager sends it again), {@code resolved-signalled}, {@code
 *     nothing-running}, {@code ignored} (can never succeed as sent) or {@code error} (may succeed
 *     when Alertmanager sends it again)
 * @param workflowId the ReplaceMember runbook concerned, when there is one (for {@code duplicate}:
 *     the one it started)
 * @param reason why an alert was ignored or failed
 */
public record AlertResult(
    String alertname,
    String cluster,
    String member,
    String outcome,
    String workflowId,
    String reason) {

  public static final String STARTED = "started";
  public static final String ALREADY_RUNNING = "already-running";
  public static final String MEMBER_HEALTHY = "member-healthy";
  public static final String DUPLICATE = "duplicate";
  public static final String BUSY = "busy";
  public static final String RESOLVED_SIGNALLED = "resolved-signalled";
  public static final String NOTHING_RUNNING = "nothing-running";
  public static final String IGNORED = "ignored";
  public static final String ERROR = "error";

  /** The whole answer: one result per alert, in the payload's order. */
  public record Results(List<AlertResult> results) {}
}
