package io.etcdrunbooks.workflows.fleet;

import java.util.List;

/**
 * A fleet upgrade as its {@code fleetStatus} query and its result show it.
 *
 * @param fleet the fleet
 * @param targetVersion the version every cluster is to end on
 * @param waves the waves, in order (empty until planned)
 * @param wave the wave running now, empty between waves
 * @param clusters every selected cluster, by name
 * @param halted why the fleet stopped starting clusters, empty while it goes on
 */
public record FleetStatus(
    String fleet,
    String targetVersion,
    List<FleetWave> waves,
    String wave,
    List<ClusterOutcome> clusters,
    String halted) {

  public long count(String state) {
    return clusters.stream().filter(c -> c.state().equals(state)).count();
  }
}
