package io.etcdrunbooks.runtime;

import io.etcdrunbooks.activities.etcd.EtcdActivitiesImpl;
import io.etcdrunbooks.activities.release.ReleaseActivitiesImpl;
import io.etcdrunbooks.activities.release.ReleaseStore;
import io.etcdrunbooks.activities.release.ReleaseStores;
import io.etcdrunbooks.activities.targets.ClusterTargets;
import io.etcdrunbooks.inventory.InventorySource;
import io.etcdrunbooks.inventory.TemporalInventoryRecords;
import io.etcdrunbooks.workflows.activities.EtcdActivities;
import io.etcdrunbooks.workflows.activities.ReleaseActivities;
import io.etcdrunbooks.workflows.inventory.InventoryRecordWorkflow;
import io.micronaut.context.BeanProvider;
import io.micronaut.context.annotation.Factory;
import io.temporal.client.WorkflowClient;
import jakarta.inject.Singleton;
import java.nio.file.Path;

/**
 * The inventory, and the activities that read what a cluster is and what it can be upgraded to. The
 * worker registers these very beans with Temporal; the API injects them by their interfaces, so
 * both read clusters the same way and the API never builds an activity implementation itself.
 */
@Factory
public class InventoryBeans {

  /**
   * The inventory file; with {@code runbooks.inventory-store: temporal}, read-only, with the
   * runbooks' record of each cluster in Temporal over it.
   */
  @Singleton
  public InventorySource inventorySource(
      RunbooksConfig config, BeanProvider<WorkflowClient> temporal) {
    Path file = Path.of(config.inventory());
    if (!config.recordsInTemporal()) return new InventorySource(file);
    return new InventorySource(
        file,
        new TemporalInventoryRecords(
            temporal.get(), InventoryRecordWorkflow.taskQueue(config.taskQueue())),
        InventorySource.RECORD_MAX_AGE);
  }

  @Singleton
  public EtcdActivities etcdActivities(InventorySource inventory) {
    return new EtcdActivitiesImpl(ClusterTargets.etcdOnly(inventory));
  }

  /** The inventory's binary source (its {@code releases} section), as it was when first needed. */
  @Singleton
  public ReleaseStore releaseStore(InventorySource inventory) {
    return ReleaseStores.from(inventory.get().releases());
  }

  @Singleton
  public ReleaseActivities releaseActivities(InventorySource inventory, ReleaseStore releases) {
    return new ReleaseActivitiesImpl(ClusterTargets.etcdOnly(inventory), releases);
  }
}
