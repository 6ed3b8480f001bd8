package io.etcdrunbooks.inventory;

import java.util.List;
import java.util.Map;

/**
 * The worker's view of the clusters it may operate on, read from a YAML file (see
 * docs/configuration.md). It holds paths to secrets (SSH key, TLS key), never the secrets
 * themselves, and never leaves the worker.
 *
 * @param fleets named fleets: a name to a label selector ({@link FleetSelector}), for FleetUpgrade
 */
public record Inventory(
    ReleaseSource releases, Map<String, ClusterSpec> clusters, Map<String, String> fleets) {

  public Inventory {
    clusters = clusters == null ? Map.of() : Map.copyOf(clusters);
    fleets = fleets == null ? Map.of() : Map.copyOf(fleets);
  }

  public Inventory(ReleaseSource releases, Map<String, ClusterSpec> clusters) {
    this(releases, clusters, Map.of());
  }

  /** The same inventory with these clusters (its fleets kept). */
  public Inventory withClusters(Map<String, ClusterSpec> otherClusters) {
    return new Inventory(releases, otherClusters, fleets);
  }

  public ClusterSpec cluster(String name) {
    ClusterSpec spec = name == null ? null : clusters.get(name);
    if (spec == null) {
      throw new UnknownClusterException(name, List.copyOf(clusters.keySet()));
    }
    return spec;
  }
}
