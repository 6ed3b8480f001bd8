package io.etcdrunbooks.testkit;

import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.upgrade.UpgradeClusterWorkflow;
import io.etcdrunbooks.workflows.upgrade.UpgradeRequest;
import io.etcdrunbooks.workflows.upgrade.UpgradeResult;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * An upgrade whose worker (a JVM of its own) is killed with SIGKILL the moment the first member it
 * restarts is down, stopped and not yet started; a second worker JVM finishes it. Every member's
 * down time is measured from outside ({@link MemberDownWatch}), so the killed worker's member is
 * held against the normal restarts of the same upgrade. For the tools' {@code bench} and the
 * worker's RestartWorkerCrashTest.
 */
public final class WorkerKilledMidRestart {

  private static final String TASK_QUEUE = "etcd-runbooks-killed-worker";

  private WorkerKilledMidRestart() {}

  /**
   * @param member the member whose worker was killed while it was stopped
   * @param restarts every member's down time, and its process once back
   */
  public record Measured(
      String member, Map<String, MemberDownWatch.Restart> restarts, UpgradeResult result) {

    public long killedMillis() {
      return restarts.get(member).millis();
    }

    /** The slowest restart of another member of the same upgrade. */
    public long normalMillis() {
      return restarts.entrySet().stream()
          .filter(e -> !e.getKey().equals(member))
          .mapToLong(e -> e.getValue().millis())
          .max()
          .orElse(0);
    }
  }

  /** Upgrades the sandbox's cluster to {@code to}; the workers' logs go to {@code logs}. */
  public static Measured run(Sandbox sandbox, String to, Path logs) throws Exception {
    try (EmbeddedTemporal temporal = EmbeddedTemporal.start(Ports.free())) {
      WorkflowServiceStubs stubs =
          WorkflowServiceStubs.newServiceStubs(
              WorkflowServiceStubsOptions.newBuilder().setTarget(temporal.address()).build());
      Process first = worker(sandbox, temporal, logs.resolve("worker-1.log"));
      Process second = null;
      CompletableFuture<String> killed = new CompletableFuture<>();
      try (MemberDownWatch watch =
          new MemberDownWatch(
              sandbox,
              to,
              member -> {
                first.destroyForcibly(); // SIGKILL: no shutdown hook, no graceful worker stop
                killed.complete(member);
              })) {
        String cluster = sandbox.cluster().name();
        UpgradeClusterWorkflow workflow =
            WorkflowClient.newInstance(stubs)
                .newWorkflowStub(
                    UpgradeClusterWorkflow.class,
                    WorkflowOptions.newBuilder()
                        .setWorkflowId(UpgradeClusterWorkflow.workflowId(cluster))
                        .setTaskQueue(TASK_QUEUE)
                        .build());
        WorkflowClient.start(
            workflow::upgrade,
            UpgradeRequest.to(cluster, to, RunbookOptions.defaults().withMemberTimeoutSeconds(60)));
        String member = killed.get(3, TimeUnit.MINUTES);
        if (!first.waitFor(30, TimeUnit.SECONDS))
          throw new IllegalStateException("worker-1 outlived its SIGKILL");
        second = worker(sandbox, temporal, logs.resolve("worker-2.log"));
        UpgradeResult result =
            WorkflowStub.fromTyped(workflow).getResult(4, TimeUnit.MINUTES, UpgradeResult.class);
        // the last member is back by the time the runbook's readiness wait says so; the watch
        // polls every few ms
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (watch.restarts().size() < sandbox.cluster().members().size()
            && System.nanoTime() < deadline) TimeUnit.MILLISECONDS.sleep(10);
        return new Measured(member, watch.restarts(), result);
      } finally {
        // gone before the server closes, so that it is not left cancelling their polls
        for (Process worker : java.util.Arrays.asList(first, second)) {
          if (worker != null) worker.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
        stubs.shutdownNow();
      }
    }
  }

  private static Process worker(Sandbox sandbox, EmbeddedTemporal temporal, Path log)
      throws java.io.IOException {
    return WorkerProcess.startToBeKilled(
        sandbox.inventoryFile(), temporal.address(), TASK_QUEUE, log);
  }
}
