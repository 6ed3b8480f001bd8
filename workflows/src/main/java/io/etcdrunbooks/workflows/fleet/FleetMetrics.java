package io.etcdrunbooks.workflows.fleet;

import com.uber.m3.tally.Scope;
import io.temporal.workflow.Workflow;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A fleet's progress in /metrics: how many of its clusters are in each state, per wave ({@code
 * etcd_runbooks_fleet_clusters{fleet, wave, state}}). Through the workflow's metrics scope, which
 * Temporal silences while a workflow replays; a state a wave has left goes back to 0.
 */
final class FleetMetrics {

  static final String CLUSTERS = "etcd_runbooks_fleet_clusters";

  private final Scope scope;
  private final Set<List<String>> reported = new LinkedHashSet<>();

  FleetMetrics(String fleet) {
    this.scope = Workflow.getMetricsScope().tagged(Map.of("fleet", fleet));
  }

  void update(Collection<ClusterOutcome> outcomes) {
    Map<List<String>, Integer> counts = new LinkedHashMap<>();
    for (ClusterOutcome o : outcomes)
      counts.merge(List.of(o.wave().isEmpty() ? "none" : o.wave(), o.state()), 1, Integer::sum);
    reported.addAll(counts.keySet());
    for (List<String> waveAndState : reported) {
      scope
          .tagged(Map.of("wave", waveAndState.get(0), "state", waveAndState.get(1)))
          .gauge(CLUSTERS)
          .update(counts.getOrDefault(waveAndState, 0));
    }
  }
}
