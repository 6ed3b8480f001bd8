package io.etcdrunbooks.activities.inventory;

import io.etcdrunbooks.inventory.ClusterSpec;
import java.util.function.UnaryOperator;

/**
 * Where runbooks record a change of one cluster's entry: the inventory file ({@link
 * InventoryChanges}) or the record kept apart from it ({@link RecordChanges}). A change is a
 * function of the current entry, so applying it again after losing a race is safe.
 */
interface ClusterChanges {

  /**
   * Writes {@code change} of the cluster's entry.
   *
   * @return false, writing nothing, when the change leaves the entry as it is
   */
  boolean change(String cluster, UnaryOperator<ClusterSpec> change);

  /** Fails with a message for the operator when this worker could not record a change. */
  void checkWritable();

  /** Where the cluster's changes are recorded, for logs. */
  String location(String cluster);
}
