package io.etcdrunbooks.workflows.fleet;

import java.util.List;

/**
 * One wave of a fleet upgrade.
 *
 * @param name "canary", or the wave label's value ("small"), or "rest"
 * @param clusters its clusters, in the order they start
 * @param concurrency how many of them run at once
 */
public record FleetWave(String name, List<String> clusters, int concurrency) {

  public FleetWave {
    clusters = List.copyOf(clusters);
  }
}
