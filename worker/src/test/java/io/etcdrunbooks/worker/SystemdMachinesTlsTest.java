package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.activities.etcd.EtcdActivitiesImpl;
import io.etcdrunbooks.activities.targets.ClusterTargets;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.InventoryLoader;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.inventory.TlsSpec;
import io.etcdrunbooks.testkit.Machines;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.testkit.TestCertificates;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.tls.EnableTls;
import io.etcdrunbooks.workflows.tls.ReconfigureTlsRequest;
import io.etcdrunbooks.workflows.tls.ReconfigureTlsResult;
import io.etcdrunbooks.workflows.tls.ReconfigureTlsWorkflow;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * ReconfigureTls enable on systemd machines reached as the runbooks' non-root user: certificates
 * placed where root keeps them, each member's flags set in its unit's environment file, restarts
 * through the unit, a writer running throughout.
 */
@RealEtcd
@Timeout(value = 8, unit = TimeUnit.MINUTES)
class SystemdMachinesTlsTest {

  private static final String TASK_QUEUE = "etcd-runbooks-machines-tls-test";

  @TempDir Path dir;

  @Test
  void anHttpClusterOnSystemdMachinesEndsServingOnlyTlsWithoutALostWrite() throws Exception {
    TestCertificates.Material material = TestCertificates.write(dir.resolve("worker-pki"));
    Path caKey = material.authority().writeKey();
    TlsSpec workerTls = material.client(false);
    try (Machines machines =
            Machines.start(
                dir.resolve("machines"), "prod-1", 3, "3.5.30", SandboxRunbooks.releases());
        WorkerCrashScenario runbooks =
            WorkerCrashScenario.withShippedWorker(dir, machines.inventoryFile(), TASK_QUEUE)) {
      try (ClusterProbe probe = new ClusterProbe(machines.cluster())) {
        probe.putMany("/registry/before/k", 200);
      }
      ReconfigureTlsResult result;
      try (AcknowledgedWriter writer = AcknowledgedWriter.start(machines.cluster(), workerTls)) {
        result =
            runbooks
                .workflow(ReconfigureTlsWorkflow.class, ReconfigureTlsWorkflow.workflowId("prod-1"))
                .reconfigure(
                    ReconfigureTlsRequest.enableIssued(
                        "prod-1",
                        caKey.toString(),
                        90,
                        EnableTls.both(
                            workerTls.caFile(), workerTls.certFile(), workerTls.keyFile()),
                        RunbookOptions.defaults().withMemberTimeoutSeconds(90)));
        writer.stopAndCheckEveryAcknowledgedWrite(
            InventoryLoader.load(machines.inventoryFile()).cluster("prod-1"));
      }

      assertThat(result.rotated()).containsExactlyInAnyOrder("m1", "m2", "m3");
      ClusterSpec after = InventoryLoader.load(machines.inventoryFile()).cluster("prod-1");
      for (MemberSpec m : after.members()) {
        assertThat(m.clientUrl()).startsWith("https://");
        assertThat(m.peerUrl()).startsWith("https://");
        String env = Files.readString(machines.hostRoot(m.name()).resolve("etc/etcd/etcd.env"));
        assertThat(env)
            .contains("ETCD_LISTEN_CLIENT_URLS=https://")
            .contains("ETCD_PEER_CERT_FILE=")
            .doesNotContain("=http://");
        assertThat(machines.hostRoot(m.name()).resolve("etc/etcd/pki/server.key")).exists();
      }
      try (ClusterProbe probe = new ClusterProbe(after)) {
        assertThat(probe.dump(0).keySet().stream().filter(k -> k.startsWith("/registry/before/")))
            .hasSize(200);
      }
      var etcd =
          new EtcdActivitiesImpl(
              ClusterTargets.etcdOnly(() -> InventoryLoader.load(machines.inventoryFile())));
      assertThat(etcd.checkConsistency(new ClusterRef("prod-1")).hashesEqual()).isTrue();
      assertThat(etcd.discover(new ClusterRef("prod-1")).certificates().peerNotAfterByMember())
          .containsOnlyKeys("m1", "m2", "m3");
    }
  }
}
