package io.etcdrunbooks.api;

import io.etcdrunbooks.api.auth.Access;
import io.etcdrunbooks.api.auth.ApiAction;
import io.etcdrunbooks.api.auth.ApiAuthFilter;
import io.etcdrunbooks.api.auth.Caller;
import io.etcdrunbooks.inventory.InventorySource;
import io.etcdrunbooks.inventory.UnknownClusterException;
import io.etcdrunbooks.workflows.activities.EtcdActivities;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Error;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.util.List;
import java.util.Optional;

/** Live status of a cluster, read from etcd now (not from any runbook). */
@Controller("/api/v1/clusters")
public final class ClusterStatusController {

  private final InventorySource inventory;
  private final EtcdActivities etcd;

  public ClusterStatusController(InventorySource inventory, EtcdActivities etcd) {
    this.inventory = inventory;
    this.etcd = etcd;
  }

  /** The clusters of the inventory the caller's token may act on. */
  @Get
  @Access(ApiAction.LIST_CLUSTERS)
  public List<String> clusters(HttpRequest<?> http) {
    Optional<Caller> caller = http.getAttribute(ApiAuthFilter.CALLER, Caller.class);
    return inventory.get().clusters().keySet().stream()
        .filter(c -> caller.map(who -> who.mayActOn(c)).orElse(false))
        .sorted()
        .toList();
  }

  @Get("/{cluster}/status")
  @Access(ApiAction.CLUSTER_STATUS)
  @ExecuteOn(TaskExecutors.BLOCKING)
  public ClusterState status(@PathVariable String cluster) {
    inventory.get().cluster(cluster);
    return etcd.discover(new ClusterRef(cluster));
  }

  @Error(exception = UnknownClusterException.class)
  public HttpResponse<ApiError> unknownCluster(HttpRequest<?> http, UnknownClusterException e) {
    return UnknownClusters.response(http, e, inventory);
  }
}
