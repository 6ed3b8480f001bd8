package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.inventory.InventorySource;
import io.etcdrunbooks.inventory.TemporalInventoryRecords;
import io.micronaut.context.ApplicationContext;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * runbooks.inventory-store: file by default (changes written into the inventory file), temporal
 * (records in Temporal over a read-only file), anything else refused naming the setting.
 */
class InventoryStoreConfigTest {

  @TempDir Path dir;

  @Test
  void theFileStoreByDefaultTheTemporalStoreWhenSetAndAnyOtherValueRefused() {
    String file = dir.resolve("inventory.yaml").toString();
    try (ApplicationContext context = ApplicationContext.run(Map.of("runbooks.inventory", file))) {
      assertThat(context.getBean(InventorySource.class).records()).isEmpty();
    }
    try (ApplicationContext context =
        ApplicationContext.run(
            Map.of(
                "runbooks.inventory",
                file,
                "runbooks.inventory-store",
                "temporal",
                // never reached: the records are read when a runbook or a reader needs them
                "temporal.address",
                "127.0.0.1:9"))) {
      assertThat(context.getBean(InventorySource.class).records())
          .get()
          .isInstanceOf(TemporalInventoryRecords.class);
    }
    try (ApplicationContext context =
        ApplicationContext.run(
            Map.of("runbooks.inventory", file, "runbooks.inventory-store", "configmap"))) {
      assertThatThrownBy(() -> context.getBean(InventorySource.class))
          .hasStackTraceContaining(
              "runbooks.inventory-store (ETCD_RUNBOOKS_INVENTORY_STORE) must be 'file' or"
                  + " 'temporal', got 'configmap'");
    }
  }
}
