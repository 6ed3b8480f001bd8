package io.etcdrunbooks.api;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.context.annotation.Context;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.bind.annotation.Bindable;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The Alertmanager webhook ({@code POST /api/v1/alerts/alertmanager}) that starts the ReplaceMember
 * runbook. Checked when the application starts ({@link Context}), so a wrong policy or hash stops
 * the process at once rather than at the first alert.
 *
 * @param tokenSha256 hex SHA-256 of the bearer token Alertmanager sends; the token itself is never
 *     configured. Empty: the endpoint refuses every call
 * @param memberDownAlerts alertnames that mean "this member is down"; other alerts are ignored
 * @param clusterLabel label naming the inventory cluster; empty (the default): {@code etcd_cluster}
 *     when the alert has it (the shipped rules' label), else {@code cluster}
 * @param memberLabel label naming the member: its inventory name, or the host:port of its client or
 *     peer URL
 * @param defaultPolicy {@code approval} (the runbook waits for an approve signal) or {@code auto}
 * @param policies policy per cluster name, overriding the default
 * @param dedupeMinutes how long an alert (by its Alertmanager fingerprint) that started a runbook
 *     starts no other, even once that runbook has ended; its resolution ends that at once. 0: no
 *     such memory
 * @param autoDownMinutes with the {@code auto} policy, how long the member must have stayed down
 *     (the runbook watches it) before anything is touched, so a rebooting node is not replaced;
 *     with {@code approval} the operator decides
 */
@Context
@ConfigurationProperties("runbooks.alerts")
public record AlertsConfig(
    @Bindable(defaultValue = "") String tokenSha256,
    @Bindable(defaultValue = "EtcdMemberDown") List<String> memberDownAlerts,
    @Bindable(defaultValue = "") String clusterLabel,
    @Bindable(defaultValue = "member") String memberLabel,
    @Bindable(defaultValue = "approval") String defaultPolicy,
    @Nullable Map<String, String> policies,
    @Bindable(defaultValue = "30") int dedupeMinutes,
    @Bindable(defaultValue = "5") int autoDownMinutes) {

  public AlertsConfig {
    tokenSha256 = tokenSha256 == null ? "" : tokenSha256.strip().toLowerCase(Locale.ROOT);
    if (!tokenSha256.isEmpty() && !tokenSha256.matches("[0-9a-f]{64}")) {
      // Never echo the value: someone may have put the plain token here by mistake.
      throw new IllegalArgumentException(
          "runbooks.alerts.token-sha256 must be 64 hex digits, the SHA-256 of the token"
              + " (printf %s \"$TOKEN\" | sha256sum), not the token itself; it has "
              + tokenSha256.length()
              + " characters");
    }
    clusterLabel = clusterLabel == null ? "" : clusterLabel.strip();
    memberDownAlerts = memberDownAlerts == null ? List.of() : List.copyOf(memberDownAlerts);
    policies = policies == null ? Map.of() : Map.copyOf(policies);
    Policy.parse("runbooks.alerts.default-policy", defaultPolicy);
    policies.forEach(
        (cluster, policy) -> Policy.parse("runbooks.alerts.policies." + cluster, policy));
    if (autoDownMinutes < 0 || autoDownMinutes > 24 * 60) {
      throw new IllegalArgumentException(
          "runbooks.alerts.auto-down-minutes is %d: use 0 (replace at once) to 1440 (a day)"
              .formatted(autoDownMinutes));
    }
    if (dedupeMinutes < 0 || dedupeMinutes > MAX_DEDUPE_MINUTES) {
      throw new IllegalArgumentException(
          "runbooks.alerts.dedupe-minutes is "
              + dedupeMinutes
              + ": use 0 (no memory of"
              + " fingerprints) to "
              + MAX_DEDUPE_MINUTES
              + " (a week)");
    }
  }

  /**
   * A week: longer would keep a member that goes down again unreplaced for longer than anyone would
   * want.
   */
  static final int MAX_DEDUPE_MINUTES = 7 * 24 * 60;

  public boolean enabled() {
    return !tokenSha256.isEmpty();
  }

  public byte[] tokenSha256Bytes() {
    return HexFormat.of().parseHex(tokenSha256);
  }

  /** The policy of a cluster: its own entry in {@code policies}, else the default. */
  public Policy policyFor(String cluster) {
    String own = policies.get(cluster);
    return own != null
        ? Policy.parse("runbooks.alerts.policies." + cluster, own)
        : Policy.parse("runbooks.alerts.default-policy", defaultPolicy);
  }

  /** What a member-down alert may do on its own. */
  public enum Policy {
    /** Start the runbook, which stops after preflight until someone approves it. */
    APPROVAL,
    /** Start the runbook and let it replace the member without waiting. */
    AUTO;

    static Policy parse(String key, String value) {
      if (value != null) {
        for (Policy policy : values()) {
          if (policy.name().equalsIgnoreCase(value.strip())) {
            return policy;
          }
        }
      }
      throw new IllegalArgumentException(
          key
              + " is '"
              + value
              + "': use approval (the runbook waits for"
              + " POST /api/v1/runbooks/<id>/approve) or auto");
    }
  }

  /**
   * The label that names the cluster in an alert with these labels: the configured one, or {@code
   * etcd_cluster} when present (the shipped rules' label, not the {@code cluster} label that
   * multi-cluster Prometheus setups add), else {@code cluster}.
   */
  public String clusterLabelFor(Map<String, String> labels) {
    if (!clusterLabel.isEmpty()) return clusterLabel;
    return labels != null && labels.containsKey("etcd_cluster") ? "etcd_cluster" : "cluster";
  }
}
