package io.etcdrunbooks.activities.release;

import io.etcdrunbooks.inventory.Inventory;
import io.etcdrunbooks.inventory.UnknownClusterException;
import io.etcdrunbooks.workflows.activities.ReleaseActivities;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.model.ClusterRef;
import java.util.List;
import java.util.function.Supplier;

/** {@link ReleaseActivities} over the worker's release store (the same for every cluster). */
public final class ReleaseActivitiesImpl implements ReleaseActivities {

  private final Supplier<Inventory> inventory;
  private final ReleaseStore releases;

  public ReleaseActivitiesImpl(Inventory inventory, ReleaseStore releases) {
    this(() -> inventory, releases);
  }

  public ReleaseActivitiesImpl(Supplier<Inventory> inventory, ReleaseStore releases) {
    this.inventory = inventory;
    this.releases = releases;
  }

  @Override
  public List<String> availableVersions(ClusterRef cluster) {
    try {
      inventory.get().cluster(cluster.cluster());
    } catch (UnknownClusterException e) {
      throw FailureType.UnknownCluster.nonRetryable(e.getMessage());
    }
    return releases.versions();
  }
}
