package io.etcdrunbooks.worker;

import com.uber.m3.tally.RootScopeBuilder;
import io.etcdrunbooks.activities.etcd.EtcdActivitiesImpl;
import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.activities.targets.ClusterTargets;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.Inventory;
import io.etcdrunbooks.inventory.InventoryLoader;
import io.etcdrunbooks.inventory.InventorySource;
import io.etcdrunbooks.inventory.KubernetesSpec;
import io.etcdrunbooks.testkit.Sandbox;
import io.etcdrunbooks.testkit.SandboxSpec;
import io.etcdrunbooks.workflows.common.RunbookIds;
import io.etcdrunbooks.workflows.common.RunbookPayloads;
import io.etcdrunbooks.workflows.fleet.FleetUpgradeWorkflow;
import io.etcdrunbooks.workflows.upgrade.UpgradeClusterWorkflow;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.common.reporter.MicrometerClientStatsReporter;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Several 3-member sandboxes in one inventory, each with its labels, and a worker on Temporal's
 * test server that runs every runbook for them: the fleet a FleetUpgrade test upgrades.
 */
final class FleetSandboxes implements AutoCloseable {

  static final String TASK_QUEUE = "etcd-runbooks-fleet-test";

  /** One cluster to build: its name, version, labels and extra etcd settings per member. */
  record Planned(
      String name,
      String version,
      Map<String, String> labels,
      Map<String, Map<String, String>> extraEnv) {}

  final Map<String, Sandbox> sandboxes = new LinkedHashMap<>();
  final Path inventoryFile;
  private final TestWorkflowEnvironment env;
  private final SshConnector ssh = new SshConnector();
  private final SimpleMeterRegistry metrics = new SimpleMeterRegistry();

  FleetSandboxes(Path dir, List<Planned> clusters) {
    this(dir, clusters, true);
  }

  /**
   * @param inJvmWorker run a worker on Temporal's test server in this JVM; false: the caller runs
   *     its own (a worker JVM against an embedded server)
   */
  FleetSandboxes(Path dir, List<Planned> clusters, boolean inJvmWorker) {
    Map<String, ClusterSpec> specs = new LinkedHashMap<>();
    Inventory first = null;
    try {
      for (Planned c : clusters) {
        Sandbox sandbox =
            Sandbox.create(
                new SandboxSpec(dir.resolve(c.name()), c.name(), 3, c.version(), c.extraEnv()),
                SandboxRunbooks.releases());
        sandboxes.put(c.name(), sandbox);
        if (first == null) first = sandbox.inventory();
        specs.put(c.name(), sandbox.cluster().withLabels(c.labels()));
      }
    } catch (RuntimeException e) {
      sandboxes.values().forEach(Sandbox::close);
      throw e;
    }
    inventoryFile = dir.resolve("fleet-inventory.yaml");
    InventoryLoader.write(
        new Inventory(first.releases(), specs, Map.of("everything", "tier=test")), inventoryFile);
    if (!inJvmWorker) {
      env = null;
      return;
    }
    InventorySource inventory = new InventorySource(inventoryFile);
    env =
        TestWorkflowEnvironment.newInstance(
            TestEnvironmentOptions.newBuilder()
                .setWorkflowClientOptions(RunbookPayloads.clientOptions().build())
                .setUseTimeskipping(false)
                .setMetricsScope(
                    new RootScopeBuilder()
                        .reporter(new MicrometerClientStatsReporter(metrics))
                        .reportEvery(com.uber.m3.util.Duration.ofMillis(50)))
                .build());
    Worker worker = env.newWorker(TASK_QUEUE);
    RunbookWorker.register(
        worker,
        WorkerActivities.of(
            inventory,
            new EtcdActivitiesImpl(ClusterTargets.etcdOnly(inventory)),
            ssh,
            SandboxRunbooks.releases()));
    env.start();
  }

  /**
   * The fleet's clusters in a wave and state, as /metrics shows them ({@code
   * etcd_runbooks_fleet_clusters}); -1 when not reported.
   */
  double fleetClusters(String fleet, String wave, String state) {
    var gauge =
        metrics
            .find("etcd_runbooks_fleet_clusters")
            .tags("fleet", fleet, "wave", wave, "state", state)
            .gauge();
    return gauge == null ? -1 : gauge.value();
  }

  WorkflowClient client() {
    return env.getWorkflowClient();
  }

  FleetUpgradeWorkflow fleetStub(String fleet) {
    return client()
        .newWorkflowStub(
            FleetUpgradeWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(FleetUpgradeWorkflow.workflowId(fleet))
                .setTaskQueue(TASK_QUEUE)
                .build());
  }

  /** An upgrade of one cluster under its change id, as an operator would start it. */
  UpgradeClusterWorkflow upgradeStub(String cluster) {
    return client()
        .newWorkflowStub(
            UpgradeClusterWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(RunbookIds.changing(cluster))
                .setTaskQueue(TASK_QUEUE)
                .build());
  }

  ClusterProbe probe(String cluster) {
    return new ClusterProbe(sandboxes.get(cluster).cluster());
  }

  /** The cluster's entry in the fleet's inventory gains a Kubernetes API to reach. */
  void kubernetes(String cluster, KubernetesSpec kubernetes) {
    Inventory inventory = InventoryLoader.load(inventoryFile);
    Map<String, ClusterSpec> clusters = new LinkedHashMap<>(inventory.clusters());
    clusters.put(cluster, clusters.get(cluster).withKubernetes(kubernetes));
    InventoryLoader.write(inventory.withClusters(clusters), inventoryFile);
  }

  Map<String, Long> pids(String cluster) {
    Map<String, Long> pids = new LinkedHashMap<>();
    for (String m : List.of("m1", "m2", "m3")) pids.put(m, sandboxes.get(cluster).pidOf(m));
    return pids;
  }

  @Override
  public void close() {
    if (env != null) env.close();
    ssh.close();
    List<RuntimeException> failures = new ArrayList<>();
    for (Sandbox s : sandboxes.values()) {
      try {
        s.close();
      } catch (RuntimeException e) {
        failures.add(e);
      }
    }
    if (!failures.isEmpty()) throw failures.get(0);
  }
}
