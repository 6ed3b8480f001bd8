package io.etcdrunbooks.worker;

import io.etcdrunbooks.activities.backup.BackupActivitiesImpl;
import io.etcdrunbooks.activities.host.HostActivitiesImpl;
import io.etcdrunbooks.activities.release.ReleaseActivitiesImpl;
import io.etcdrunbooks.activities.release.ReleaseStore;
import io.etcdrunbooks.activities.release.ReleaseStores;
import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.inventory.InventorySource;
import io.etcdrunbooks.workflows.activities.BackupActivities;
import io.etcdrunbooks.workflows.activities.HostActivities;
import io.etcdrunbooks.workflows.activities.ReleaseActivities;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;

/** The activity implementations the worker registers; secrets are read from files here and go nowhere else. */
@Factory
public class ActivityBeans {

  @Singleton
  @Bean(preDestroy = "close")
  public SshConnector sshConnector() {
    return new SshConnector();
  }

  @Singleton
  public ReleaseStore releaseStore(InventorySource inventory) {
    return ReleaseStores.from(inventory.get().releases());
  }

  @Singleton
  public HostActivities hostActivities(InventorySource inventory, SshConnector ssh, ReleaseStore releases) {
    return new HostActivitiesImpl(inventory, ssh, releases);
  }

  @Singleton
  public ReleaseActivities releaseActivities(InventorySource inventory, ReleaseStore releases) {
    return new ReleaseActivitiesImpl(inventory, releases);
  }

  @Singleton
  public BackupActivities backupActivities(InventorySource inventory, ReleaseStore releases) {
    return new BackupActivitiesImpl(inventory, releases);
  }
}
