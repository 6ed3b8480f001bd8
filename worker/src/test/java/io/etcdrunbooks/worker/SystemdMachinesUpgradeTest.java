package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.testkit.Machines;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.upgrade.UpgradeClusterWorkflow;
import io.etcdrunbooks.workflows.upgrade.UpgradeRequest;
import io.etcdrunbooks.workflows.upgrade.UpgradeResult;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * UpgradeCluster on hosts that look like production: three systemd-nspawn machines with systemd as
 * PID 1 and OpenSSH, etcd a systemd unit (Type=notify) on each, the worker its own JVM reaching
 * them over SSH with their host keys checked, a writer running.
 */
@RealEtcd
@Timeout(value = 8, unit = TimeUnit.MINUTES)
class SystemdMachinesUpgradeTest {

  private static final String TASK_QUEUE = "etcd-runbooks-machines-test";

  @TempDir Path dir;

  @Test
  void threeSystemdMachinesUpgradeFrom3325To3530WithoutALostWrite() throws Exception {
    try (Machines machines =
            Machines.start(
                dir.resolve("machines"), "prod-1", 3, "3.3.25", SandboxRunbooks.releases());
        EmbeddedTemporal temporal = EmbeddedTemporal.start(Ports.free())) {
      try (ClusterProbe probe = new ClusterProbe(machines.cluster())) {
        probe.putMany("/registry/before/k", 300);
      }
      WorkflowServiceStubs stubs =
          WorkflowServiceStubs.newServiceStubs(
              WorkflowServiceStubsOptions.newBuilder().setTarget(temporal.address()).build());
      Process worker =
          WorkerJvm.start(
              machines.inventoryFile(), temporal.address(), TASK_QUEUE, dir.resolve("worker.log"));
      try {
        WorkflowClient client = WorkflowClient.newInstance(stubs);
        UpgradeClusterWorkflow workflow =
            client.newWorkflowStub(
                UpgradeClusterWorkflow.class,
                WorkflowOptions.newBuilder()
                    .setWorkflowId(UpgradeClusterWorkflow.workflowId("prod-1"))
                    .setTaskQueue(TASK_QUEUE)
                    .build());
        UpgradeResult result;
        try (AcknowledgedWriter writer = AcknowledgedWriter.start(machines.cluster(), null)) {
          result =
              workflow.upgrade(
                  UpgradeRequest.to(
                      "prod-1", "3.5.30", RunbookOptions.defaults().withMemberTimeoutSeconds(90)));
          writer.stopAndCheckEveryAcknowledgedWrite(machines.cluster());
        }

        assertThat(result.memberVersions())
            .isEqualTo(Map.of("m1", "3.5.30", "m2", "3.5.30", "m3", "3.5.30"));
        assertThat(result.clusterVersion()).startsWith("3.5");
        try (ClusterProbe probe = new ClusterProbe(machines.cluster())) {
          assertThat(probe.dump(0).keySet().stream().filter(k -> k.startsWith("/registry/before/")))
              .hasSize(300);
          assertThat(probe.hashKvByMember(0).values().stream().distinct()).hasSize(1);
        }
        for (String m : new String[] {"m1", "m2", "m3"}) {
          // the unit still runs /opt/etcd/current/etcd, now the new version's binary
          assertThat(
                  Files.readSymbolicLink(machines.hostRoot(m).resolve("opt/etcd/current"))
                      .toString())
              .contains("3.5.30");
        }
      } finally {
        worker.destroyForcibly();
        stubs.shutdownNow();
      }
    }
  }
}
