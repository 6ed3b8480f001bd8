package io.etcdrunbooks.activities.inventory;

import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.Inventory;
import io.etcdrunbooks.inventory.InventoryLoader;
import io.etcdrunbooks.inventory.InventoryStore;
import io.etcdrunbooks.inventory.UnknownClusterException;
import io.etcdrunbooks.workflows.common.FailureType;
import io.temporal.failure.ApplicationFailure;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import java.util.function.UnaryOperator;

/**
 * Applies a change to one cluster's entry through an {@link InventoryStore}: read, change,
 * validate, write if nobody wrote in between; when another worker did, read again and apply the
 * change to what is there now. A change is a function of the current entry, so applying it again is
 * safe.
 */
final class InventoryChanges implements ClusterChanges {

  /** Two workers meet here for milliseconds; this many lost races in a row means something else. */
  static final int ATTEMPTS = 50;

  private final InventoryStore store;

  InventoryChanges(InventoryStore store) {
    this.store = store;
  }

  /**
   * Writes {@code change} of the cluster's entry.
   *
   * @return false, writing nothing, when the change leaves the entry as it is
   * @throws ApplicationFailure {@code UnknownCluster} or {@code InventoryInvalid} when the cluster
   *     is not in the inventory or its changed entry would be invalid (nothing written), not
   *     retried
   * @throws IllegalStateException when other writers kept changing the inventory (retryable)
   */
  @Override
  public boolean change(String cluster, UnaryOperator<ClusterSpec> change) {
    for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
      InventoryStore.Versioned current = store.read();
      Inventory inventory = InventoryLoader.parse(current.content(), store.location());
      ClusterSpec before;
      try {
        before = inventory.cluster(cluster);
      } catch (UnknownClusterException e) {
        throw FailureType.UnknownCluster.nonRetryable(e.getMessage());
      }
      ClusterSpec after = change.apply(before);
      if (after.equals(before)) return false;
      Map<String, ClusterSpec> clusters = new LinkedHashMap<>(inventory.clusters());
      clusters.put(cluster, after);
      String content = InventoryLoader.toYaml(inventory.withClusters(clusters));
      validate(content, cluster, store.location());
      if (store.writeIfUnchanged(current.version(), content)) return true;
      // apart again, so that the next round does not meet the same writer at the same moment
      LockSupport.parkNanos(
          ThreadLocalRandom.current().nextLong(1_000_000L * Math.min(attempt, 5)));
    }
    throw new IllegalStateException(
        "another writer changed the inventory "
            + store.location()
            + " each of the "
            + ATTEMPTS
            + " times this worker tried to record cluster '"
            + cluster
            + "''s change; nothing was written, and the activity will try again");
  }

  @Override
  public void checkWritable() {
    store.checkWritable();
  }

  @Override
  public String location(String cluster) {
    return store.location();
  }

  /**
   * The validation an operator's edit gets: an entry it refuses is never written.
   *
   * @param where what would have been written, for the message
   */
  static void validate(String content, String cluster, String where) {
    try {
      InventoryLoader.parse(content, where).cluster(cluster);
    } catch (IllegalArgumentException e) {
      throw ApplicationFailure.newNonRetryableFailure(
          "the changed inventory would be invalid, so "
              + where
              + " was left as it was: "
              + e.getMessage(),
          "InventoryInvalid");
    }
  }
}
