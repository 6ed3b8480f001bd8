package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PrometheusConventionsTest {

  @Test
  void wellNamedSeriesPass() {
    assertThat(
            PrometheusConventions.violations(
                """
                # TYPE etcd_runbooks_runbooks_started_total counter
                etcd_runbooks_runbooks_started_total{etcd_cluster="a",runbook="UpgradeCluster"} 1.0
                # TYPE etcd_runbooks_phase_duration_seconds histogram
                etcd_runbooks_phase_duration_seconds_bucket{etcd_cluster="a",le="1.0"} 0
                etcd_runbooks_phase_duration_seconds_count{etcd_cluster="a"} 0
                # TYPE etcd_runbooks_phase_duration_seconds_max gauge
                etcd_runbooks_phase_duration_seconds_max{etcd_cluster="a"} 0.0
                # TYPE etcd_runbooks_phase_entered_timestamp_seconds gauge
                etcd_runbooks_phase_entered_timestamp_seconds{etcd_cluster="a",phase="UPGRADE"} 0.0
                # TYPE temporal_request_latency gauge
                temporal_request_latency{cluster="x"} 1
                """))
        .isEmpty();
  }

  @Test
  void eachBrokenConventionIsNamed() {
    assertThat(
            PrometheusConventions.violations(
                """
                # TYPE etcd_runbooks_runbooks_started counter
                etcd_runbooks_runbooks_started{cluster="a"} 1.0
                # TYPE etcd_runbooks_phase_duration_seconds histogram
                etcd_runbooks_phase_duration_seconds_count{etcd_cluster="a"} 0
                # TYPE etcd_runbooks_backup_age_minutes gauge
                etcd_runbooks_backup_age_minutes{etcd_cluster="a"} 3
                # TYPE etcd_runbooks_approval_wait gauge
                etcd_runbooks_approval_wait{etcdCluster="a"} 3
                # TYPE etcd_runbooks_members_total gauge
                etcd_runbooks_members_total 3
                """))
        .containsExactlyInAnyOrder(
            "etcd_runbooks_runbooks_started: label `cluster` (use etcd_cluster; setups add their"
                + " own `cluster`)",
            "etcd_runbooks_approval_wait: label etcdCluster not snake_case",
            "etcd_runbooks_runbooks_started: counter without _total",
            "etcd_runbooks_phase_duration_seconds: a histogram without _bucket series",
            "etcd_runbooks_backup_age_minutes: not in a base unit (seconds, bytes)",
            "etcd_runbooks_backup_age_minutes: a time without its unit: end it in _seconds",
            "etcd_runbooks_approval_wait: a time without its unit: end it in _seconds",
            "etcd_runbooks_members_total: gauge with _total");
  }
}
