package io.etcdrunbooks.api;

import io.etcdrunbooks.inventory.UnknownClusterException;
import io.etcdrunbooks.workflows.activities.EtcdActivities;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Error;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.util.List;
import io.etcdrunbooks.inventory.InventorySource;

/** Live status of a cluster, read from etcd now (not from any runbook). */
@Controller("/api/v1/clusters")
public final class ClusterStatusController {

  private final InventorySource inventory;
  private final EtcdActivities etcd;

  public ClusterStatusController(InventorySource inventory, EtcdActivities etcd) {
    this.inventory = inventory;
    this.etcd = etcd;
  }

  @Get
  public List<String> clusters() {
    return inventory.get().clusters().keySet().stream().sorted().toList();
  }

  @Get("/{cluster}/status")
  @ExecuteOn(TaskExecutors.BLOCKING)
  public ClusterState status(@PathVariable String cluster) {
    inventory.get().cluster(cluster);
    return etcd.discover(new ClusterRef(cluster));
  }

  @Error(exception = UnknownClusterException.class)
  public HttpResponse<ApiError> unknownCluster(UnknownClusterException e) {
    return HttpResponse.notFound(new ApiError(e.getMessage()));
  }
}
