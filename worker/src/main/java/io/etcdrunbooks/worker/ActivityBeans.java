package io.etcdrunbooks.worker;

import io.etcdrunbooks.activities.etcd.EtcdActivitiesImpl;
import io.etcdrunbooks.activities.release.ReleaseStore;
import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.activities.targets.ClusterTargets;
import io.etcdrunbooks.inventory.InventorySource;
import io.etcdrunbooks.workflows.activities.ReleaseActivities;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import io.temporal.client.WorkflowClient;
import jakarta.inject.Singleton;

/**
 * The activity implementations the worker registers; secrets are read from files here and go
 * nowhere else. The inventory, the etcd and release activities and the release store are the
 * runtime module's beans, shared with the API.
 */
@Factory
public class ActivityBeans {

  @Singleton
  @Bean(preDestroy = "close")
  public SshConnector sshConnector() {
    return new SshConnector();
  }

  @Singleton
  public WorkerActivities workerActivities(
      InventorySource inventory,
      ReleaseActivities releaseActivities,
      SshConnector ssh,
      ReleaseStore releases,
      WorkflowClient client) {
    // the worker's discovery stops fenced members that answer again; the API's shared bean reports
    return WorkerActivities.of(
        inventory,
        EtcdActivitiesImpl.stoppingFencedMembers(new ClusterTargets(inventory, ssh)),
        releaseActivities,
        ssh,
        releases,
        new TemporalRunLiveness(client));
  }
}
