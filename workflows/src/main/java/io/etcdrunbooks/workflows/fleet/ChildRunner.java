package io.etcdrunbooks.workflows.fleet;

import io.etcdrunbooks.workflows.common.Runbook;
import io.etcdrunbooks.workflows.common.RunbookIds;
import io.etcdrunbooks.workflows.common.RunbookSearchAttributes;
import io.etcdrunbooks.workflows.upgrade.UpgradeClusterWorkflow;
import io.etcdrunbooks.workflows.upgrade.UpgradeRequest;
import io.etcdrunbooks.workflows.upgrade.UpgradeResult;
import io.temporal.api.enums.v1.ParentClosePolicy;
import io.temporal.api.enums.v1.WorkflowIdReusePolicy;
import io.temporal.client.WorkflowExecutionAlreadyStarted;
import io.temporal.workflow.Async;
import io.temporal.workflow.ChildWorkflowOptions;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * Runs one child runbook per cluster, at most a number at once, in the clusters' order. A fleet's
 * pause holds new starts and, when {@code forwardPause}, is passed on to the running children (and
 * so is resume); a cancel of the fleet reaches the children through their cancellation scope.
 */
final class ChildRunner {

  /** How a child ended: its result, or its failure; busy when its change id was taken. */
  record Ended<T>(T result, RuntimeException failure, boolean busy, String why) {}

  private final FleetRun run;
  private final String what;
  private final boolean forwardPause;

  ChildRunner(FleetRun run, String what, boolean forwardPause) {
    this.run = run;
    this.what = what;
    this.forwardPause = forwardPause;
  }

  /** The cluster's UpgradeCluster, started under its change id. */
  static Promise<UpgradeResult> upgrade(String cluster, UpgradeRequest request) {
    UpgradeClusterWorkflow child =
        Workflow.newChildWorkflowStub(
            UpgradeClusterWorkflow.class,
            RunbookSearchAttributes.inherited(
                    ChildWorkflowOptions.newBuilder(), UpgradeClusterWorkflow.TYPE, cluster)
                // the change id: never a second change of a cluster that has one running
                .setWorkflowId(RunbookIds.changing(cluster))
                .setWorkflowIdReusePolicy(
                    WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE)
                // a fleet that ends or is terminated leaves each cluster at its next safe point
                .setParentClosePolicy(ParentClosePolicy.PARENT_CLOSE_POLICY_REQUEST_CANCEL)
                .build());
    return Async.function(child::upgrade, request);
  }

  <T> void runAll(
      List<String> clusters,
      int limit,
      Function<String, Promise<T>> start,
      BiConsumer<String, Ended<T>> ended,
      BooleanSupplier stopStarting) {
    Map<String, Promise<T>> running = new LinkedHashMap<>();
    int next = 0;
    boolean forwarded = false;
    while (true) {
      while (running.size() < limit
          && next < clusters.size()
          && !stopStarting.getAsBoolean()
          && !run.progress.isPaused()) {
        String cluster = clusters.get(next++);
        run.progress.message(what + ": starting " + cluster);
        running.put(cluster, start.apply(cluster));
      }
      boolean nothingLeft = next >= clusters.size() || stopStarting.getAsBoolean();
      if (running.isEmpty() && nothingLeft) return;
      boolean paused = run.progress.isPaused();
      Workflow.await(
          () ->
              running.values().stream().anyMatch(Promise::isCompleted)
                  || run.progress.isPaused() != paused
                  || run.progress.isCancelRequested());
      if (forwardPause && run.progress.isPaused() != forwarded) {
        forwarded = run.progress.isPaused();
        for (String cluster : running.keySet()) signal(cluster, forwarded);
      }
      for (String cluster : new ArrayList<>(running.keySet())) {
        Promise<T> child = running.get(cluster);
        if (!child.isCompleted()) continue;
        running.remove(cluster);
        ended.accept(cluster, ended(child));
      }
    }
  }

  private void signal(String cluster, boolean pause) {
    Runbook child = Workflow.newExternalWorkflowStub(Runbook.class, RunbookIds.changing(cluster));
    String by = "fleet " + run.fleet();
    if (pause) child.pause(by);
    else child.resume(by);
  }

  private static <T> Ended<T> ended(Promise<T> child) {
    RuntimeException failure = child.getFailure();
    if (failure == null) return new Ended<>(child.get(), null, false, "");
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof WorkflowExecutionAlreadyStarted started) {
        return new Ended<>(null, failure, true, started.getExecution().getWorkflowId());
      }
    }
    return new Ended<>(null, failure, false, "");
  }
}
