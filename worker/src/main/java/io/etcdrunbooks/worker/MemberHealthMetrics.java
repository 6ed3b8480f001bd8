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
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code etcd_runbooks_member_up{etcd_cluster,member}}: 1 while the inventory member answers
 * healthy on its client URL ({@code GET /health}), 0 otherwise; what the member-down alerts read.
 * Read again in the background when a scrape finds the values older than {@link #MAX_AGE}, so a
 * scrape never waits on a member that does not answer.
 */
@Singleton
public final class MemberHealthMetrics {

  static final String NAME = "etcd.runbooks.member.up";
  static final Duration MAX_AGE = Duration.ofSeconds(15);

  private static final Logger log = LoggerFactory.getLogger(MemberHealthMetrics.class);

  private final InventorySource inventory;
  private final MultiGauge gauge;
  private final AtomicBoolean reading = new AtomicBoolean();
  private volatile Instant readAt = Instant.EPOCH;

  public MemberHealthMetrics(InventorySource inventory, PrometheusMeterRegistry registry) {
    this.inventory = inventory;
    this.gauge =
        MultiGauge.builder(NAME)
            .description("1 while the member answers healthy on its client URL, 0 otherwise")
            .register(registry);
  }

  /** Starts a read of every member's health when the last one is older than {@link #MAX_AGE}. */
  public void refreshIfStale() {
    if (Instant.now().isBefore(readAt.plus(MAX_AGE))) return;
    if (!reading.compareAndSet(false, true)) return;
    CompletableFuture.runAsync(
        () -> {
          try {
            gauge.register(rows(), true);
            readAt = Instant.now();
          } catch (RuntimeException e) {
            log.warn("member health not read: {}", e.getMessage());
          } finally {
            reading.set(false);
          }
        });
  }

  private List<MultiGauge.Row<?>> rows() {
    List<MultiGauge.Row<?>> rows = new ArrayList<>();
    for (ClusterSpec cluster : inventory.get().clusters().values()) {
      ClusterVersionReader reader = new ClusterVersionReader(cluster);
      for (MemberSpec member : cluster.members()) {
        rows.add(
            MultiGauge.Row.of(
                Tags.of("etcd_cluster", cluster.name(), "member", member.name()),
                healthy(reader, member) ? 1 : 0));
      }
    }
    return rows;
  }

  private static boolean healthy(ClusterVersionReader reader, MemberSpec member) {
    try {
      return reader.healthy(member.clientUrl());
    } catch (IOException e) {
      return false;
    }
  }
}
