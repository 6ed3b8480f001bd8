package io.etcdrunbooks.runtime;

import io.etcdrunbooks.activities.etcd.EtcdActivitiesImpl;
import io.etcdrunbooks.inventory.InventorySource;
import io.etcdrunbooks.workflows.activities.EtcdActivities;
import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;
import java.nio.file.Path;

/** The inventory and the etcd API access that both the API and the worker use. */
@Factory
public class InventoryBeans {

  @Singleton
  public InventorySource inventorySource(RunbooksConfig config) {
    return new InventorySource(Path.of(config.inventory()));
  }

  @Singleton
  public EtcdActivities etcdActivities(InventorySource inventory) {
    return new EtcdActivitiesImpl(inventory);
  }
}
