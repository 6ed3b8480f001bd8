package io.etcdrunbooks.worker;

import io.etcdrunbooks.activities.etcd.ClusterVersionReader;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.InventorySource;
import io.etcdrunbooks.inventory.MemberSpec;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code etcd_runbooks_member_certificate_expiry_seconds{etcd_cluster,member,listener}}: how long
 * each TLS member's certificate, as it shows it in a real handshake on its client URL ({@code
 * listener="client"}) and on an https peer URL ({@code listener="peer"}), stays valid (negative
 * once it has expired). Read again in the background when a scrape finds the values older than
 * {@link #MAX_AGE}, so a scrape never waits on a handshake.
 */
@Singleton
public final class CertificateExpiryMetrics {

  static final String NAME = "etcd.runbooks.member.certificate.expiry";
  static final Duration MAX_AGE = Duration.ofMinutes(1);

  private static final Logger log = LoggerFactory.getLogger(CertificateExpiryMetrics.class);

  private final InventorySource inventory;
  private final MultiGauge gauge;
  private final BackgroundRead read;

  public CertificateExpiryMetrics(InventorySource inventory, PrometheusMeterRegistry registry) {
    this.inventory = inventory;
    this.gauge =
        MultiGauge.builder(NAME)
            .description("seconds until the certificate a member presents on a listener expires")
            .baseUnit("seconds")
            .register(registry);
    this.read =
        new BackgroundRead("member certificates", MAX_AGE, () -> gauge.register(rows(), true));
  }

  /** Starts a read of every certificate when the last one is older than {@link #MAX_AGE}. */
  public void refreshIfStale() {
    read.startIfStale();
  }

  private List<MultiGauge.Row<?>> rows() {
    List<MultiGauge.Row<?>> rows = new ArrayList<>();
    for (ClusterSpec cluster : inventory.get().clusters().values()) {
      if (cluster.tls() == null) continue;
      ClusterVersionReader reader = new ClusterVersionReader(cluster);
      for (MemberSpec member : cluster.members()) {
        read(cluster, member, "client", () -> reader.serverCertificate(member.clientUrl()), rows);
        read(cluster, member, "peer", () -> reader.peerCertificate(member.peerUrl()), rows);
      }
    }
    return rows;
  }

  private interface CertificateRead {
    Optional<X509Certificate> read() throws IOException;
  }

  private static void read(
      ClusterSpec cluster,
      MemberSpec member,
      String listener,
      CertificateRead certificate,
      List<MultiGauge.Row<?>> rows) {
    try {
      certificate
          .read()
          .ifPresent(
              c ->
                  rows.add(
                      MultiGauge.Row.of(
                          Tags.of(
                              "etcd_cluster",
                              cluster.name(),
                              "member",
                              member.name(),
                              "listener",
                              listener),
                          Duration.between(Instant.now(), c.getNotAfter().toInstant())
                              .toSeconds())));
    } catch (IOException e) {
      log.debug(
          "{} {} {}: no certificate read: {}",
          cluster.name(),
          member.name(),
          listener,
          e.getMessage());
    }
  }
}
