package io.etcdrunbooks.inventory;

import java.util.List;
import java.util.Map;

/**
 * The worker's view of the clusters it may operate on, read from a YAML file (see
 * docs/configuration.md). It holds paths to secrets (SSH key, TLS key), never the secrets
 * themselves, and never leaves the worker.
 */
public record Inventory(ReleaseSource releases, Map<String, ClusterSpec> clusters) {

  public Inventory {
    clusters = clusters == null ? Map.of() : Map.copyOf(clusters);
  }

  public ClusterSpec cluster(String name) {
    ClusterSpec spec = name == null ? null : clusters.get(name);
    if (spec == null) {
      throw new UnknownClusterException(name, List.copyOf(clusters.keySet()));
    }
    return spec;
  }
}
