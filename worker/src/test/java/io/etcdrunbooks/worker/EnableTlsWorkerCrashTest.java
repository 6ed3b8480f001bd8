package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.InventorySource;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.inventory.TlsSpec;
import io.etcdrunbooks.testkit.ControlPlaneStandIns;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.testkit.Sandbox;
import io.etcdrunbooks.testkit.SandboxSpec;
import io.etcdrunbooks.testkit.TestCertificates;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.tls.EnableTls;
import io.etcdrunbooks.workflows.tls.ReconfigureTlsRequest;
import io.etcdrunbooks.workflows.tls.ReconfigureTlsResult;
import io.etcdrunbooks.workflows.tls.ReconfigureTlsWorkflow;
import io.temporal.client.WorkflowClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The worker runs as its own JVM and is killed with SIGKILL while enabling TLS, with members
 * restarting onto TLS-only client URLs and the apiservers already on https; a second worker JVM
 * finishes the move.
 */
@RealEtcd
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class EnableTlsWorkerCrashTest {

  private static final String TASK_QUEUE = "etcd-runbooks-enable-tls-crash-test";

  @TempDir Path dir;

  @Test
  void aWorkerKilledMidwayIsReplacedAndTheClusterEndsOnTlsWithEveryKey() throws Exception {
    TestCertificates.Material material = TestCertificates.write(dir.resolve("worker-pki"));
    TlsSpec worker = material.client(false);
    try (Sandbox sandbox =
            Sandbox.create(
                new SandboxSpec(dir.resolve("sandbox"), "sandbox", 3, "3.5.30"),
                SandboxRunbooks.releases());
        ControlPlaneStandIns apiServers = ControlPlaneStandIns.attach(sandbox);
        WorkerCrashScenario crash =
            WorkerCrashScenario.withWorker(dir, sandbox.inventoryFile(), TASK_QUEUE)) {
      try (ClusterProbe probe = new ClusterProbe(sandbox.cluster())) {
        probe.putManyUnordered("/registry/before/k", 200);
      }
      String id = ReconfigureTlsWorkflow.workflowId("sandbox");
      ReconfigureTlsWorkflow workflow = crash.workflow(ReconfigureTlsWorkflow.class, id);
      WorkflowClient.start(
          workflow::reconfigure,
          ReconfigureTlsRequest.enableIssued(
              "sandbox",
              material.authority().writeKey().toString(),
              90,
              EnableTls.both(worker.caFile(), worker.certFile(), worker.keyFile()),
              RunbookOptions.defaults().withMemberTimeoutSeconds(60)));
      crash.awaitProgress(
          workflow::progress,
          p -> p.phase() == Phase.TLS_ONLY,
          "restarting members onto TLS-only client URLs");

      crash.killWorker();
      crash.startWorker();
      ReconfigureTlsResult result =
          crash.result(workflow, ReconfigureTlsResult.class, Duration.ofMinutes(4));

      assertThat(result.rotated()).containsExactlyInAnyOrder("m1", "m2", "m3");
      ClusterSpec after = new InventorySource(sandbox.inventoryFile()).get().cluster("sandbox");
      for (MemberSpec m : after.members()) {
        assertThat(m.clientUrl()).startsWith("https://");
        assertThat(m.peerUrl()).startsWith("https://");
        assertThat(HttpProbe.answersPlainHttp("http" + m.clientUrl().substring("https".length())))
            .as("%s over http", m.name())
            .isFalse();
      }
      try (ClusterProbe probe = new ClusterProbe(after)) {
        assertThat(probe.dump(0).keySet().stream().filter(k -> k.startsWith("/registry/before/")))
            .hasSize(200);
        assertThat(probe.hashKvByMember(0).values().stream().distinct()).hasSize(1);
      }
      for (String host : apiServers.hosts()) {
        assertThat(HttpProbe.status(apiServers.standIn(host).healthUrl()))
            .as("%s on https", host)
            .isEqualTo(200);
      }
      // certificates were placed once: the second worker did not place them again
      assertThat(crash.activityCount(id, "TlsPlaceCertificates")).isEqualTo(6);
      assertThat(crash.activityCount(id, "TlsRemovePlacedCertificates")).isZero();
    }
  }
}
