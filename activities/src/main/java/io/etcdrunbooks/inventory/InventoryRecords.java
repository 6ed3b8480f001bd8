package io.etcdrunbooks.inventory;

import io.etcdrunbooks.workflows.inventory.InventoryRecord;
import java.util.Optional;

/**
 * Where the runbooks' record of each cluster ({@link ClusterRecord}, as YAML) is kept apart from
 * the operator's inventory file, changed by compare-and-swap. See docs/inventory-store.md.
 */
public interface InventoryRecords {

  /** The cluster's record as the store has it now; {@link InventoryRecord#none()} if none. */
  InventoryRecord read(String cluster);

  /**
   * Replaces the record if its version is still {@code onVersion}.
   *
   * @param content the new record; empty drops it
   * @param by who changes it, for the store's history
   * @return the record now, or empty, writing nothing, when it changed since that version
   */
  Optional<InventoryRecord> replace(String cluster, long onVersion, String content, String by);

  /** Where the cluster's record is, for logs and messages. */
  String location(String cluster);

  /** What an operator runs to drop the cluster's record, so that the file's entry counts again. */
  String forgetCommand(String cluster);
}
