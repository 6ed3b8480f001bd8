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
import java.util.ArrayList;
import java.util.List;

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

  private final InventorySource inventory;
  private final MultiGauge gauge;
  private final BackgroundRead read;

  public MemberHealthMetrics(InventorySource inventory, PrometheusMeterRegistry registry) {
    this.inventory = inventory;
    this.gauge =
        MultiGauge.builder(NAME)
            .description("1 while the member answers healthy on its client URL, 0 otherwise")
            .register(registry);
    this.read = new BackgroundRead("member health", MAX_AGE, () -> gauge.register(rows(), true));
  }

  /** Starts a read of every member's health when the last one is older than {@link #MAX_AGE}. */
  public void refreshIfStale() {
    read.startIfStale();
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
