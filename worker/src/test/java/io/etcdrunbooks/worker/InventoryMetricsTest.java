package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.inventory.InventorySource;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The clusters the inventory refuses, as Prometheus scrapes them, and gone once fixed. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class InventoryMetricsTest {

  private static final String CLUSTER =
      """
        NAME:
          ssh: {user: ops, privateKeyFile: /k, knownHostsFile: /kh}
          service: {kind: systemd, unit: 'UNIT'}
          backupDir: /backups
          members:
            - {name: m1, host: 10.0.0.1, clientUrl: "http://10.0.0.1:2379", peerUrl: "http://10.0.0.1:2380", dataDir: /d, installDir: /i}
      """;

  @TempDir Path dir;

  @Test
  void aScrapeShowsEachRefusedClusterUntilItsEntryIsFixed() throws Exception {
    Path file = dir.resolve("inventory.yaml");
    write(file, "etcd; reboot");
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    InventoryMetrics metrics = new InventoryMetrics(new InventorySource(file), registry);

    metrics.refresh();
    assertThat(registry.scrape())
        .contains("etcd_runbooks_inventory_cluster_invalid{etcd_cluster=\"shell\"} 1.0")
        .doesNotContain("cluster=\"good\"");

    write(file, "etcd.service");
    Files.setLastModifiedTime(file, FileTime.from(Instant.now().plusSeconds(5)));
    metrics.refresh();
    assertThat(registry.scrape()).doesNotContain("cluster=\"shell\"");
  }

  private static void write(Path file, String shellUnit) throws Exception {
    Files.writeString(
        file,
        "releases: {localDir: /opt/releases}\nclusters:\n"
            + CLUSTER.replace("NAME", "good").replace("UNIT", "etcd.service")
            + CLUSTER.replace("NAME", "shell").replace("UNIT", shellUnit));
  }
}
