package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.inventory.InventorySource;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.testkit.Sandbox;
import io.etcdrunbooks.testkit.SandboxSpec;
import io.etcdrunbooks.testkit.TestCertificates;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The seconds each TLS member's certificate has left, as Prometheus scrapes them. */
@RealEtcd
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class CertificateExpiryMetricsTest {

  private static final Pattern SAMPLE =
      Pattern.compile(
          "etcd_runbooks_member_certificate_expiry_seconds\\{etcd_cluster=\"secure\",listener=\"client\",member=\"(m\\d)\"\\}"
              + " ([0-9.E+]+)");

  @TempDir Path dir;

  @Test
  void aScrapeShowsTheSecondsEachMembersCertificateHasLeft() throws Exception {
    try (Sandbox sandbox =
        Sandbox.create(
            new SandboxSpec(dir, "secure", 3, "3.5.30").withTls(true),
            SandboxRunbooks.releases())) {
      PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
      CertificateExpiryMetrics metrics =
          new CertificateExpiryMetrics(new InventorySource(sandbox.inventoryFile()), registry);

      metrics.refreshIfStale();
      String scraped = registry.scrape();
      Instant deadline = Instant.now().plusSeconds(30);
      while (count(scraped) < 3 && Instant.now().isBefore(deadline)) {
        TimeUnit.MILLISECONDS.sleep(100);
        scraped = registry.scrape();
      }

      assertThat(count(scraped)).as(scraped).isEqualTo(3);
      Matcher m = SAMPLE.matcher(scraped);
      while (m.find()) {
        assertThat(Double.parseDouble(m.group(2)))
            .as(m.group(1))
            .isBetween(
                (double) TestCertificates.VALIDITY.minus(Duration.ofHours(2)).toSeconds(),
                (double) TestCertificates.VALIDITY.toSeconds());
      }
    }
  }

  private static long count(String scraped) {
    return SAMPLE.matcher(scraped).results().count();
  }
}
