package io.etcdrunbooks.workflows.fleet;

import io.etcdrunbooks.workflows.activities.KubernetesActivities;
import io.etcdrunbooks.workflows.activities.KubernetesActivities.NodeWatch;
import io.etcdrunbooks.workflows.activities.KubernetesActivities.WatchNodesRequest;
import io.etcdrunbooks.workflows.common.Failures;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.CanceledFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The nodes of a wave's upgraded clusters, each cluster's watched through its Kubernetes API for
 * the length of the bake (one look without a bake): seed 003's trouble showed only as kubelets
 * flapping NotReady, which a look after the bake can miss. A watch fails at the first look with
 * more NotReady nodes than the cluster's kubernetes.maxNotReadyNodes.
 */
final class NodeWatches {

  static final NodeWatches NONE = new NodeWatches(Map.of(), null);

  private final Map<String, Promise<NodeWatch>> watches;
  private final CancellationScope scope;

  private NodeWatches(Map<String, Promise<NodeWatch>> watches, CancellationScope scope) {
    this.watches = watches;
    this.scope = scope;
  }

  static NodeWatches start(FleetRun run, List<String> clusters) {
    int seconds = run.request.bakeMinutes() * 60;
    KubernetesActivities kubernetes = run.activities.nodeWatch(Duration.ofSeconds(seconds));
    Map<String, Promise<NodeWatch>> watches = new LinkedHashMap<>();
    CancellationScope scope =
        Workflow.newCancellationScope(
            () -> {
              for (String cluster : clusters)
                watches.put(
                    cluster,
                    Async.function(
                        kubernetes::watchNodes, new WatchNodesRequest(cluster, seconds)));
            });
    scope.run();
    return new NodeWatches(watches, scope);
  }

  /** How many watches failed so far. */
  int failed() {
    return (int)
        watches.values().stream().filter(p -> p.isCompleted() && p.getFailure() != null).count();
  }

  /** The cluster's watch once it ended: empty when its nodes stayed within the threshold. */
  List<String> problems(FleetRun run, String cluster) {
    Promise<NodeWatch> watch = watches.get(cluster);
    List<String> problems = new ArrayList<>();
    if (watch == null) return problems;
    try {
      NodeWatch seen = run.progress.record(cluster + ": nodes Ready", watch::get);
      run.progress.message(seen.detail());
    } catch (ActivityFailure | CanceledFailure e) {
      if (e instanceof CanceledFailure || e.getCause() instanceof CanceledFailure)
        run.progress.message(cluster + ": nodes watched until the bake ended early");
      else problems.add(Failures.rootMessage(e));
    }
    return problems;
  }

  /** Ends the watches still running. */
  void cancel() {
    if (scope != null) scope.cancel("the bake ended early");
  }
}
