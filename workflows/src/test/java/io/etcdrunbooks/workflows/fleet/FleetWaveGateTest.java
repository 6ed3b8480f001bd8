package io.etcdrunbooks.workflows.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.workflows.activities.ApiServerActivities;
import io.etcdrunbooks.workflows.activities.ApiServerActivities.AwaitApiServerRequest;
import io.etcdrunbooks.workflows.activities.InventoryActivities;
import io.etcdrunbooks.workflows.activities.InventoryActivities.FleetCluster;
import io.etcdrunbooks.workflows.activities.KubernetesActivities;
import io.etcdrunbooks.workflows.activities.KubernetesActivities.NodeWatch;
import io.etcdrunbooks.workflows.activities.KubernetesActivities.WatchNodesRequest;
import io.etcdrunbooks.workflows.common.ApproveRequest;
import io.etcdrunbooks.workflows.common.CancelRequest;
import io.etcdrunbooks.workflows.common.ControlOutcome;
import io.etcdrunbooks.workflows.common.ControlRequest;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.Progress;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.EtcdVersion;
import io.etcdrunbooks.workflows.testing.RecordingActivities;
import io.etcdrunbooks.workflows.upgrade.LadderStep;
import io.etcdrunbooks.workflows.upgrade.UpgradeClusterWorkflow;
import io.etcdrunbooks.workflows.upgrade.UpgradePlan;
import io.etcdrunbooks.workflows.upgrade.UpgradeRequest;
import io.etcdrunbooks.workflows.upgrade.UpgradeResult;
import io.temporal.client.WorkflowOptions;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import io.temporal.workflow.Workflow;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A wave is judged after its bake by its clusters' kube-apiservers, not by the etcd postflight
 * alone: a cluster whose kube-apiserver is not ready fails and counts against the budget, and the
 * next wave starts only after the bake. Upgrades are stand-ins; time is skipped.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class FleetWaveGateTest {

  private static final String QUEUE = "fleet-wave-gate";

  /** When each cluster's (real) upgrade started and ended, in workflow time. */
  private static final Map<String, long[]> RAN = new ConcurrentHashMap<>();

  /** Each cluster whose nodes were watched, with the watch's length in seconds. */
  private static final Map<String, Integer> WATCHED = new ConcurrentHashMap<>();

  private final TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance();

  @AfterEach
  void close() {
    env.close();
    RAN.clear();
    WATCHED.clear();
  }

  /** An upgrade that plans one step and, unless dry, takes ten minutes. */
  public static final class StandInUpgrade implements UpgradeClusterWorkflow {
    @Override
    public UpgradeResult upgrade(UpgradeRequest request) {
      EtcdVersion from = EtcdVersion.parse("3.4.23");
      EtcdVersion to = EtcdVersion.parse("3.5.30");
      LadderStep step = new LadderStep(from, to, List.of("m1"));
      UpgradePlan plan = new UpgradePlan(from, to, List.of(step));
      if (!request.dryRun()) {
        long start = Workflow.currentTimeMillis();
        Workflow.sleep(Duration.ofMinutes(10));
        RAN.put(request.cluster(), new long[] {start, Workflow.currentTimeMillis()});
      }
      return new UpgradeResult(
          request.cluster(),
          request.dryRun(),
          plan,
          null,
          Map.of("m1", "3.5.30"),
          "3.5.0",
          null,
          null,
          Map.of(),
          List.of(),
          List.of());
    }

    @Override
    public Progress progress() {
      return null;
    }

    @Override
    public void pause(String by) {}

    @Override
    public void resume(String by) {}

    @Override
    public void approve(String by) {}

    @Override
    public ControlOutcome approveRun(ApproveRequest request) {
      return null;
    }

    @Override
    public void validateApproveRun(ApproveRequest request) {}

    @Override
    public ControlOutcome pauseRun(ControlRequest request) {
      return null;
    }

    @Override
    public void validatePauseRun(ControlRequest request) {}

    @Override
    public ControlOutcome resumeRun(ControlRequest request) {
      return null;
    }

    @Override
    public void validateResumeRun(ControlRequest request) {}

    @Override
    public ControlOutcome cancelRun(CancelRequest request) {
      return null;
    }

    @Override
    public void validateCancelRun(CancelRequest request) {}
  }

  @Test
  void aClusterWhoseKubeApiServerIsNotReadyAfterTheBakeFailsAndHaltsTheFleet() {
    FleetUpgradeWorkflow fleet = start(Map.of("c1", "cp1", "c2", "cp2", "c3", "cp3"), "cp2", "");

    assertThatThrownBy(() -> fleet.upgrade(request()))
        .satisfies(
            e -> {
              assertThat(Failures.rootType(e)).isEqualTo(FailureType.FleetHalted.name());
              assertThat(Failures.rootMessage(e)).contains("c2: upgraded, but kube-apiserver");
            });
    FleetStatus status = fleet.fleetStatus();
    assertThat(outcome(status, "c1").state()).isEqualTo(ClusterOutcome.UPGRADED);
    assertThat(outcome(status, "c2").state()).isEqualTo(ClusterOutcome.FAILED);
    assertThat(outcome(status, "c2").detail())
        .contains("not ready after the wave's bake", "cp2: kube-apiserver on cp2 is not ready");
    assertThat(outcome(status, "c3").state()).isEqualTo(ClusterOutcome.NOT_STARTED);
    assertThat(RAN).doesNotContainKey("c3");
  }

  @Test
  void aClusterWhoseNodesGoNotReadyDuringTheBakeFailsTheBakeEndsThereAndTheNextWaveNeverStarts() {
    FleetUpgradeWorkflow fleet = start(Map.of("c1", "cp1", "c2", "cp2", "c3", "cp3"), "", "c2");

    assertThatThrownBy(() -> fleet.upgrade(request()))
        .satisfies(
            e -> {
              assertThat(Failures.rootType(e)).isEqualTo(FailureType.FleetHalted.name());
              assertThat(Failures.rootMessage(e))
                  .contains("c2: upgraded, but its nodes were not Ready during the wave's bake");
            });
    FleetStatus status = fleet.fleetStatus();
    assertThat(outcome(status, "c2").detail()).contains("cluster 'c2': 1 of 3 nodes NotReady");
    assertThat(outcome(status, "c3").state()).isEqualTo(ClusterOutcome.NOT_STARTED);
    assertThat(RAN).doesNotContainKey("c3");
    // watched for the whole bake, each cluster of the wave
    assertThat(WATCHED).containsEntry("c1", 1800).containsEntry("c2", 1800);
  }

  @Test
  void theNextWaveStartsOnlyAfterTheBake() {
    FleetUpgradeWorkflow fleet = start(Map.of("c1", "cp1", "c2", "cp2", "c3", "cp3"), "", "");

    fleet.upgrade(request());

    assertThat(RAN.get("c2")[0] - RAN.get("c1")[1])
        .as("from the canary's end to the next wave's start")
        .isGreaterThanOrEqualTo(Duration.ofMinutes(30).toMillis());
    assertThat(fleet.fleetStatus().clusters())
        .allSatisfy(c -> assertThat(c.state()).isEqualTo(ClusterOutcome.UPGRADED));
  }

  private static FleetUpgradeRequest request() {
    return FleetUpgradeRequest.of("prod", "", "3.5.30").withBakeMinutes(30);
  }

  private static ClusterOutcome outcome(FleetStatus status, String cluster) {
    return status.clusters().stream().filter(c -> c.cluster().equals(cluster)).findFirst().get();
  }

  /** Clusters c1 (small), c2 (small), c3 (large), each with one control-plane host. */
  private FleetUpgradeWorkflow start(
      Map<String, String> hostOf, String notReady, String nodesNotReadyIn) {
    Worker worker = env.newWorker(QUEUE);
    worker.registerWorkflowImplementationTypes(
        FleetUpgradeWorkflowImpl.class, StandInUpgrade.class);
    new RecordingActivities(fleetAndControlPlane(hostOf, notReady, nodesNotReadyIn))
        .registerOn(worker);
    env.start();
    return env.getWorkflowClient()
        .newWorkflowStub(
            FleetUpgradeWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(FleetUpgradeWorkflow.workflowId("prod"))
                .setTaskQueue(QUEUE)
                .build());
  }

  /** The inventory's fleet and each cluster's kube-apiserver; only the calls a fleet makes. */
  private static Object fleetAndControlPlane(
      Map<String, String> hostOf, String notReady, String nodesNotReadyIn) {
    List<FleetCluster> clusters =
        List.of(
            new FleetCluster("c1", Map.of("size", "small"), 3),
            new FleetCluster("c2", Map.of("size", "small"), 3),
            new FleetCluster("c3", Map.of("size", "large"), 3));
    return Proxy.newProxyInstance(
        FleetWaveGateTest.class.getClassLoader(),
        new Class<?>[] {
          InventoryActivities.class, ApiServerActivities.class, KubernetesActivities.class
        },
        (proxy, method, args) ->
            switch (method.getName()) {
              case "selectClusters" -> clusters;
              case "controlPlaneHosts" -> List.of(hostOf.get(((ClusterRef) args[0]).cluster()));
              case "awaitHealthy" -> {
                AwaitApiServerRequest r = (AwaitApiServerRequest) args[0];
                if (r.host().equals(notReady)) {
                  throw ApplicationFailure.newNonRetryableFailure(
                      "kube-apiserver on " + r.host() + " is not ready", "ApiServerUnhealthy");
                }
                yield null;
              }
              case "watchNodes" -> {
                WatchNodesRequest r = (WatchNodesRequest) args[0];
                WATCHED.put(r.cluster(), r.seconds());
                if (r.cluster().equals(nodesNotReadyIn)) {
                  throw ApplicationFailure.newNonRetryableFailure(
                      "cluster '" + r.cluster() + "': 1 of 3 nodes NotReady (at most 0 allowed)",
                      FailureType.NodesNotReady.name());
                }
                yield new NodeWatch(true, "cluster '" + r.cluster() + "': 3 nodes");
              }
              default -> throw new UnsupportedOperationException(method.getName());
            });
  }
}
