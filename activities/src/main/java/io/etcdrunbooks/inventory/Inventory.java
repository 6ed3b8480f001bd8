package io.etcdrunbooks.inventory;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;

/**
 * The worker's view of the clusters it may operate on, read from a YAML file (see
 * docs/configuration.md). It holds paths to secrets (SSH key, TLS key), never the secrets
 * themselves, and never leaves the worker.
 *
 * @param clusters the clusters whose entry is valid: the only ones runbooks, status and alerts act
 *     on
 * @param fleets named fleets: a name to a label selector ({@link FleetSelector}), for FleetUpgrade
 * @param invalidClusters the clusters whose entry is not (a typo in one entry must not stop the
 *     others): refused by name with their problems until the file is fixed, and written back as
 *     they were when the inventory is changed
 */
public record Inventory(
    ReleaseSource releases,
    Map<String, ClusterSpec> clusters,
    Map<String, String> fleets,
    Map<String, InvalidCluster> invalidClusters) {

  public Inventory {
    clusters = clusters == null ? Map.of() : Map.copyOf(clusters);
    fleets = fleets == null ? Map.of() : Map.copyOf(fleets);
    invalidClusters = invalidClusters == null ? Map.of() : Map.copyOf(invalidClusters);
  }

  public Inventory(ReleaseSource releases, Map<String, ClusterSpec> clusters) {
    this(releases, clusters, Map.of(), Map.of());
  }

  public Inventory(
      ReleaseSource releases, Map<String, ClusterSpec> clusters, Map<String, String> fleets) {
    this(releases, clusters, fleets, Map.of());
  }

  /** The same inventory with these clusters (its fleets and invalid clusters kept). */
  public Inventory withClusters(Map<String, ClusterSpec> otherClusters) {
    return new Inventory(releases, otherClusters, fleets, invalidClusters);
  }

  /**
   * The valid cluster of that name.
   *
   * @throws InvalidClusterException when its entry is invalid (its message names the problems)
   * @throws UnknownClusterException when the inventory has no such cluster
   */
  public ClusterSpec cluster(String name) {
    ClusterSpec spec = name == null ? null : clusters.get(name);
    if (spec == null) {
      InvalidCluster invalid = name == null ? null : invalidClusters.get(name);
      if (invalid != null) throw new InvalidClusterException(name, invalid.problems());
      throw new UnknownClusterException(name, List.copyOf(clusters.keySet()));
    }
    return spec;
  }

  /**
   * A cluster entry the loader refused.
   *
   * @param entry the entry as the file has it (it may not even map onto a {@link ClusterSpec}),
   *     written back unchanged when the inventory changes
   * @param problems what is wrong with it, each naming the cluster, member and field
   */
  public record InvalidCluster(JsonNode entry, List<String> problems) {
    public InvalidCluster {
      problems = List.copyOf(problems);
    }
  }
}
