package io.etcdrunbooks.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micronaut.context.ApplicationContext;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Binding and checking of runbooks.alerts. */
class AlertsConfigTest {

  private static final String HASH =
      "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

  @Test
  void defaultsMeanApprovalForEtcdMemberDownAndADisabledEndpoint() {
    try (ApplicationContext context = ApplicationContext.run()) {
      AlertsConfig config = context.getBean(AlertsConfig.class);
      assertThat(config.enabled()).isFalse();
      assertThat(config.memberDownAlerts()).containsExactly("EtcdMemberDown");
      assertThat(config.clusterLabelFor(Map.of("etcd_cluster", "a", "cluster", "dc-1")))
          .isEqualTo("etcd_cluster");
      assertThat(config.clusterLabelFor(Map.of("cluster", "a"))).isEqualTo("cluster");
      assertThat(config.memberLabel()).isEqualTo("member");
      assertThat(config.policyFor("anything")).isEqualTo(AlertsConfig.Policy.APPROVAL);
      assertThat(config.dedupeMinutes()).isEqualTo(30);
    }
  }

  @Test
  void aConfiguredClusterLabelIsTheOnlyOneRead() {
    try (ApplicationContext context =
        ApplicationContext.run(Map.of("runbooks.alerts.cluster-label", "k8s_cluster"))) {
      AlertsConfig config = context.getBean(AlertsConfig.class);
      assertThat(config.clusterLabelFor(Map.of("etcd_cluster", "a", "k8s_cluster", "b")))
          .isEqualTo("k8s_cluster");
    }
  }

  @Test
  void policiesPerClusterOverrideTheDefault() {
    try (ApplicationContext context =
        ApplicationContext.run(
            Map.of(
                "runbooks.alerts.token-sha256", HASH.toUpperCase(),
                "runbooks.alerts.member-down-alerts", "EtcdMemberDown,EtcdNoLeader",
                "runbooks.alerts.default-policy", "auto",
                "runbooks.alerts.policies.prod-1", "approval"))) {
      AlertsConfig config = context.getBean(AlertsConfig.class);
      assertThat(config.enabled()).isTrue();
      assertThat(config.tokenSha256()).isEqualTo(HASH);
      assertThat(config.memberDownAlerts()).containsExactly("EtcdMemberDown", "EtcdNoLeader");
      assertThat(config.policyFor("prod-1")).isEqualTo(AlertsConfig.Policy.APPROVAL);
      assertThat(config.policyFor("staging")).isEqualTo(AlertsConfig.Policy.AUTO);
    }
  }

  @Test
  void anInvalidPolicyStopsTheStartNamingTheKey() {
    assertThatThrownBy(
            () ->
                ApplicationContext.run(Map.of("runbooks.alerts.policies.prod-1", "sometimes"))
                    .close())
        .hasStackTraceContaining("runbooks.alerts.policies.prod-1 is 'sometimes': use approval");
    assertThatThrownBy(() -> new AlertsConfig("", List.of(), "c", "m", "manual", Map.of(), 30, 5))
        .hasMessageContaining("runbooks.alerts.default-policy is 'manual'");
  }

  @Test
  void theDedupeWindowIsBoundNamedInItsRefusalAndAtMostAWeek() {
    try (ApplicationContext context =
        ApplicationContext.run(Map.of("runbooks.alerts.dedupe-minutes", "0"))) {
      assertThat(context.getBean(AlertsConfig.class).dedupeMinutes()).isZero();
    }
    assertThatThrownBy(() -> new AlertsConfig("", List.of(), "c", "m", "approval", Map.of(), -1, 5))
        .hasMessageContaining("runbooks.alerts.dedupe-minutes is -1");
    assertThatThrownBy(
            () ->
                new AlertsConfig("", List.of(), "c", "m", "approval", Map.of(), 7 * 24 * 60 + 1, 5))
        .hasMessageContaining("runbooks.alerts.dedupe-minutes is 10081");
  }

  @Test
  void aPlainTokenInsteadOfItsHashIsRefusedWithoutEchoingIt() {
    assertThatThrownBy(
            () ->
                new AlertsConfig("s3cret-token", List.of(), "c", "m", "approval", Map.of(), 30, 5))
        .hasMessageContaining("must be 64 hex digits")
        .hasMessageNotContaining("s3cret-token");
  }
}
