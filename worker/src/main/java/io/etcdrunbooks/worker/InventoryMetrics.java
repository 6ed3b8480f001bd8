package io.etcdrunbooks.worker;

import io.etcdrunbooks.inventory.InventorySource;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import jakarta.inject.Singleton;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code etcd_runbooks_inventory_cluster_invalid{etcd_cluster}}: 1 for each cluster whose inventory
 * entry is invalid, so it is refused (the log says why, once per change of the file). Read at each
 * scrape: the inventory is only parsed again when the file has changed.
 */
@Singleton
public final class InventoryMetrics {

  static final String NAME = "etcd.runbooks.inventory.cluster.invalid";

  private static final Logger log = LoggerFactory.getLogger(InventoryMetrics.class);

  private final InventorySource inventory;
  private final MultiGauge gauge;

  public InventoryMetrics(InventorySource inventory, PrometheusMeterRegistry registry) {
    this.inventory = inventory;
    this.gauge =
        MultiGauge.builder(NAME)
            .description(
                "1 for a cluster whose inventory entry is invalid: runbooks, status and alerts"
                    + " refuse it until the entry is fixed")
            .register(registry);
  }

  public void refresh() {
    try {
      List<MultiGauge.Row<?>> rows =
          inventory.get().invalidClusters().keySet().stream()
              .<MultiGauge.Row<?>>map(name -> MultiGauge.Row.of(Tags.of("etcd_cluster", name), 1))
              .toList();
      gauge.register(rows, true);
    } catch (RuntimeException e) {
      log.debug("inventory not read for its metrics: {}", e.getMessage());
    }
  }
}
