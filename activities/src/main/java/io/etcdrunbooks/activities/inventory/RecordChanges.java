package io.etcdrunbooks.activities.inventory;

import io.etcdrunbooks.inventory.ClusterRecord;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.Inventory;
import io.etcdrunbooks.inventory.InventoryLoader;
import io.etcdrunbooks.inventory.InventoryRecords;
import io.etcdrunbooks.inventory.InventorySource;
import io.etcdrunbooks.inventory.UnknownClusterException;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.inventory.InventoryRecord;
import io.temporal.activity.Activity;
import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import java.util.function.UnaryOperator;

/**
 * Records a change in the cluster's record ({@link InventoryRecords}), the inventory file staying
 * read-only: read the operator's entry and the record, apply the change to the entry with the
 * record over it, validate it as an operator's edit is, and replace the record if nobody changed it
 * in between; otherwise read again and apply the change to what is there now.
 */
final class RecordChanges implements ClusterChanges {

  private final InventorySource source;
  private final InventoryRecords records;

  RecordChanges(InventorySource source, InventoryRecords records) {
    this.source = source;
    this.records = records;
  }

  @Override
  public boolean change(String cluster, UnaryOperator<ClusterSpec> change) {
    for (int attempt = 1; attempt <= InventoryChanges.ATTEMPTS; attempt++) {
      Inventory operators = source.operators();
      ClusterSpec entry;
      try {
        entry = operators.cluster(cluster);
      } catch (UnknownClusterException e) {
        throw FailureType.UnknownCluster.nonRetryable(e.getMessage());
      }
      InventoryRecord record = records.read(cluster);
      ClusterSpec before =
          record.isEmpty()
              ? entry
              : ClusterRecord.parse(record.content(), records.location(cluster)).over(entry);
      ClusterSpec after = change.apply(before);
      if (after.equals(before)) {
        source.recorded(cluster, record);
        return false;
      }
      Map<String, ClusterSpec> clusters = new LinkedHashMap<>(operators.clusters());
      clusters.put(cluster, after);
      InventoryChanges.validate(
          InventoryLoader.toYaml(operators.withClusters(clusters)),
          cluster,
          records.location(cluster) + " (the inventory file " + source.file() + " is not written)");
      Optional<InventoryRecord> written =
          records.replace(cluster, record.version(), ClusterRecord.of(after).toYaml(), by());
      if (written.isPresent()) {
        source.recorded(cluster, written.get());
        return true;
      }
      LockSupport.parkNanos(
          ThreadLocalRandom.current().nextLong(1_000_000L * Math.min(attempt, 5)));
    }
    throw new IllegalStateException(
        "another writer changed "
            + records.location(cluster)
            + " each of the "
            + InventoryChanges.ATTEMPTS
            + " times this worker tried to record cluster '"
            + cluster
            + "''s change; nothing was written, and the activity will try again");
  }

  /** Nothing is written in the file: the worker needs no write access to it. */
  @Override
  public void checkWritable() {}

  @Override
  public String location(String cluster) {
    return records.location(cluster);
  }

  /** The runbook's workflow id when an activity records it, else this process. */
  private static String by() {
    try {
      return Activity.getExecutionContext().getInfo().getWorkflowId();
    } catch (IllegalStateException e) {
      return ManagementFactory.getRuntimeMXBean().getName();
    }
  }
}
