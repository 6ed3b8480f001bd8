package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.inventory.InventorySource;
import io.etcdrunbooks.testkit.Ports;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A member that does not answer is down (0) for the member-down alerts; members that answer healthy
 * show 1 in RunbookControlTest, on a real cluster.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class MemberHealthMetricsTest {

  @TempDir Path dir;

  @Test
  void aMemberThatDoesNotAnswerIsDown() throws Exception {
    Path file = dir.resolve("inventory.yaml");
    int closed = Ports.free();
    Files.writeString(
        file,
        """
        releases: {localDir: /opt/releases}
        clusters:
          prod:
            ssh: {user: ops, privateKeyFile: /k, knownHostsFile: /kh}
            service: {kind: systemd, unit: etcd.service}
            backupDir: /backups
            members:
              - {name: m1, host: 127.0.0.1, clientUrl: "http://127.0.0.1:PORT", peerUrl: "http://127.0.0.1:2380", dataDir: /d, installDir: /i}
        """
            .replace("PORT", Integer.toString(closed)));
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    MemberHealthMetrics metrics = new MemberHealthMetrics(new InventorySource(file), registry);

    metrics.refreshIfStale();
    String down = "etcd_runbooks_member_up{etcd_cluster=\"prod\",member=\"m1\"} 0.0";
    while (!registry.scrape().contains(down)) TimeUnit.MILLISECONDS.sleep(50);
    assertThat(PrometheusConventions.violations(registry.scrape())).isEmpty();
  }
}
