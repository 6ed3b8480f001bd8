package io.etcdrunbooks.worker;

import io.etcdrunbooks.inventory.InventorySource;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A drill (or a backup) that finished shows at the next scrape, not up to {@link
 * BackupMetrics#MAX_AGE} later: the backup directory changed. Real backups and drills on a real
 * cluster show on the dashboard in RunbookControlTest.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class BackupMetricsTest {

  @TempDir Path dir;

  @Test
  void aDrillThatFinishedShowsAtTheNextScrapeNotAMinuteLater() throws Exception {
    Path backups = Files.createDirectories(dir.resolve("backups"));
    Path file = dir.resolve("inventory.yaml");
    Files.writeString(
        file,
        """
        releases: {localDir: /opt/releases}
        clusters:
          prod:
            ssh: {user: ops, privateKeyFile: /k, knownHostsFile: /kh}
            service: {kind: systemd, unit: etcd.service}
            backupDir: BACKUPS
            members:
              - {name: m1, host: 127.0.0.1, clientUrl: "http://127.0.0.1:2379", peerUrl: "http://127.0.0.1:2380", dataDir: /d, installDir: /i}
        """
            .replace("BACKUPS", backups.toString()));
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    BackupMetrics metrics = new BackupMetrics(new InventorySource(file), null, registry);
    String result = "etcd_runbooks_restore_drill_last_result{etcd_cluster=\"prod\"} ";

    drill(backups, false, "");
    awaitScrape(metrics, registry, result + "0.0");

    drill(backups, true, "2026-11-27T10:00:00Z");
    awaitScrape(metrics, registry, result + "1.0");
  }

  /** Scrapes (each one starting a read if it is due) until the scrape shows {@code line}. */
  private static void awaitScrape(
      BackupMetrics metrics, PrometheusMeterRegistry registry, String line) throws Exception {
    while (true) {
      metrics.refreshIfStale();
      if (registry.scrape().contains(line)) return;
      TimeUnit.MILLISECONDS.sleep(50);
    }
  }

  /** The drill's record as the RestoreDrill runbook leaves it (LastDrill: written, then moved). */
  private static void drill(Path backups, boolean passed, String lastSuccessAt) throws Exception {
    Path tmp =
        Files.writeString(
            backups.resolve("restore-drill.last.tmp"),
            """
            {"cluster":"prod","backupId":"backup-1","target":"local","passed":%s,
             "finishedAt":"2026-11-27T10:00:00Z","lastSuccessAt":"%s"}
            """
                .formatted(passed, lastSuccessAt));
    Files.move(
        tmp,
        backups.resolve("restore-drill.last"),
        StandardCopyOption.ATOMIC_MOVE,
        StandardCopyOption.REPLACE_EXISTING);
  }
}
