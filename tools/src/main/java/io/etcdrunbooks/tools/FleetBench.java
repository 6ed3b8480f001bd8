package io.etcdrunbooks.tools;

import io.etcdrunbooks.activities.release.ReleaseStore;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.Inventory;
import io.etcdrunbooks.inventory.InventoryLoader;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.testkit.Sandbox;
import io.etcdrunbooks.testkit.SandboxSpec;
import io.etcdrunbooks.workflows.fleet.ClusterOutcome;
import io.etcdrunbooks.workflows.fleet.FleetStatus;
import io.etcdrunbooks.workflows.fleet.FleetUpgradeRequest;
import io.etcdrunbooks.workflows.fleet.FleetUpgradeWorkflow;
import io.micronaut.context.ApplicationContext;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The fleet half of {@code bench}: one worker upgrades {@code clusters} sandbox clusters of 3
 * members at once (one wave, all at a time), each with a client writing throughout. Prints the
 * whole time, the slowest cluster, this JVM's CPU time and peak heap (the worker's, and also the
 * sandboxes' SSH servers and the writers', which run here too; etcd's own processes are not
 * counted), and the writes lost; fails when any cluster was not upgraded or lost a write.
 */
final class FleetBench {

  private FleetBench() {}

  static boolean run(Path dir, ReleaseStore releases, int clusters, String from, String to)
      throws Exception {
    System.out.printf(
        "== bench: fleet of %d clusters x 3 members, %s -> %s, one worker, one wave of %d at once%n",
        clusters, from, to, clusters);
    List<Sandbox> sandboxes = new ArrayList<>();
    List<WriteProbe> writers = new ArrayList<>();
    try {
      Map<String, ClusterSpec> specs = new LinkedHashMap<>();
      for (int i = 1; i <= clusters; i++) {
        String name = "fleet" + i;
        Sandbox s =
            Sandbox.create(new SandboxSpec(dir.resolve(name), name, 3, from, Map.of()), releases);
        sandboxes.add(s);
        specs.put(name, s.cluster().withLabels(Map.of("bench", "fleet")));
      }
      Path inventoryFile = dir.resolve("fleet-inventory.yaml");
      InventoryLoader.write(
          new Inventory(sandboxes.get(0).inventory().releases(), specs), inventoryFile);
      try (LocalRunbooks runbooks =
          LocalRunbooks.start(
              List.of("worker"),
              Map.of(
                  "runbooks.inventory",
                  inventoryFile.toString(),
                  "runbooks.task-queue",
                  "etcd-runbooks-fleet-bench"))) {
        ApplicationContext context = runbooks.context();
        for (Sandbox s : sandboxes) {
          writers.add(
              new WriteProbe(
                  s.cluster().members().stream().map(MemberSpec::clientUrl).toList(),
                  "/bench/fleet/"));
        }
        FleetUpgradeWorkflow fleet =
            context
                .getBean(WorkflowClient.class)
                .newWorkflowStub(
                    FleetUpgradeWorkflow.class,
                    WorkflowOptions.newBuilder()
                        .setWorkflowId(FleetUpgradeWorkflow.workflowId("bench"))
                        .setTaskQueue("etcd-runbooks-fleet-bench")
                        .build());
        long cpuBefore = processCpuNanos();
        resetPeaks();
        long start = System.nanoTime();
        FleetStatus status =
            fleet.upgrade(
                new FleetUpgradeRequest(
                    "bench",
                    "bench=fleet",
                    to,
                    0,
                    "",
                    List.of(),
                    clusters,
                    clusters,
                    false,
                    0,
                    0,
                    false));
        long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        long cpu = TimeUnit.NANOSECONDS.toMillis(processCpuNanos() - cpuBefore);
        int lost = 0;
        long stall = 0;
        for (WriteProbe w : writers) {
          WriteProbe.Report r = w.stopAndVerify();
          lost += r.lost();
          stall = Math.max(stall, r.longestStallMillis());
        }
        ClusterOutcome slowest =
            status.clusters().stream()
                .max(
                    java.util.Comparator.comparingLong(
                        c -> c.finishedAtMillis() - c.startedAtMillis()))
                .orElseThrow();
        long upgraded = status.count(ClusterOutcome.UPGRADED);
        boolean ok = upgraded == clusters && lost == 0;
        System.out.printf(
            "   %d of %d clusters upgraded in %d ms; slowest %s %d ms; this JVM: CPU %d ms (%.1f cores"
                + " on average), peak heap %d MiB; longest write stall %d ms; acknowledged writes"
                + " lost %d -> %s%n",
            upgraded,
            clusters,
            took,
            slowest.cluster(),
            slowest.finishedAtMillis() - slowest.startedAtMillis(),
            cpu,
            (double) cpu / Math.max(1, took),
            peakHeapMiB(),
            stall,
            lost,
            ok ? "OK" : "MISSED");
        return ok;
      }
    } finally {
      writers.forEach(WriteProbe::close);
      sandboxes.forEach(Sandbox::close);
    }
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  private static void resetPeaks() {
    ManagementFactory.getMemoryPoolMXBeans().forEach(MemoryPoolMXBean::resetPeakUsage);
  }

  private static long peakHeapMiB() {
    long peak = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans())
      if (pool.getType() == MemoryType.HEAP) peak += pool.getPeakUsage().getUsed();
    return peak >> 20;
  }
}
