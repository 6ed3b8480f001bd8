package io.etcdrunbooks.runtime;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;

/**
 * Where the worker and the API find their clusters and their Temporal task queue.
 *
 * @param inventory path of the inventory YAML (clusters, hosts, paths of SSH and TLS files)
 * @param taskQueue Temporal task queue the runbooks run on
 * @param inventoryStore where runbooks record the inventory changes they make: {@code file} (the
 *     inventory file itself) or {@code temporal} (a record per cluster in Temporal, the file
 *     read-only); see docs/inventory-store.md
 */
@ConfigurationProperties("runbooks")
public record RunbooksConfig(
    @Bindable(defaultValue = "inventory.yaml") String inventory,
    @Bindable(defaultValue = "etcd-runbooks") String taskQueue,
    @Bindable(defaultValue = "file") String inventoryStore) {

  /** The inventory file itself: for one host, or a file system with locks across hosts. */
  public static final String FILE_STORE = "file";

  /** A record per cluster in Temporal, the inventory file read-only. */
  public static final String TEMPORAL_STORE = "temporal";

  /** {@link #inventoryStore()}, checked: a value that names no store stops the process at start. */
  public boolean recordsInTemporal() {
    String store = inventoryStore == null ? "" : inventoryStore.strip();
    if (store.isEmpty() || store.equals(FILE_STORE)) return false;
    if (store.equals(TEMPORAL_STORE)) return true;
    throw new IllegalStateException(
        "runbooks.inventory-store (ETCD_RUNBOOKS_INVENTORY_STORE) must be 'file' or 'temporal', got '"
            + inventoryStore
            + "' (docs/inventory-store.md says which to use where)");
  }
}
