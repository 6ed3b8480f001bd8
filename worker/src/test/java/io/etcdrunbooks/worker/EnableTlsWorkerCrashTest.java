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
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.nio.file.Path;
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
        EmbeddedTemporal temporal = EmbeddedTemporal.start(Ports.free())) {
      try (ClusterProbe probe = new ClusterProbe(sandbox.cluster())) {
        probe.putMany("/registry/before/k", 200);
      }
      WorkflowServiceStubs stubs =
          WorkflowServiceStubs.newServiceStubs(
              WorkflowServiceStubsOptions.newBuilder().setTarget(temporal.address()).build());
      WorkflowClient client = WorkflowClient.newInstance(stubs);
      String id = ReconfigureTlsWorkflow.workflowId("sandbox");
      Process first = startWorker(sandbox, temporal, "worker-1");
      Process second = null;
      try {
        ReconfigureTlsWorkflow workflow =
            client.newWorkflowStub(
                ReconfigureTlsWorkflow.class,
                WorkflowOptions.newBuilder().setWorkflowId(id).setTaskQueue(TASK_QUEUE).build());
        WorkflowClient.start(
            workflow::reconfigure,
            ReconfigureTlsRequest.enableIssued(
                "sandbox",
                material.authority().writeKey().toString(),
                90,
                EnableTls.both(worker.caFile(), worker.certFile(), worker.keyFile()),
                RunbookOptions.defaults().withMemberTimeoutSeconds(60)));
        WorkerJvm.awaitProgress(
            workflow::progress,
            first,
            dir.resolve("worker-1.log"),
            p -> p.phase() == Phase.TLS_ONLY,
            "restarting members onto TLS-only client URLs");

        first.destroyForcibly(); // SIGKILL: no shutdown hook, no graceful worker stop
        assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();

        second = startWorker(sandbox, temporal, "worker-2");
        ReconfigureTlsResult result;
        try {
          result =
              WorkflowStub.fromTyped(workflow)
                  .getResult(4, TimeUnit.MINUTES, ReconfigureTlsResult.class);
        } catch (java.util.concurrent.TimeoutException e) {
          throw new AssertionError(
              "enabling TLS did not finish on worker-2; its log:\n" + log("worker-2"));
        }

        assertThat(result.rotated()).containsExactlyInAnyOrder("m1", "m2", "m3");
        ClusterSpec after = new InventorySource(sandbox.inventoryFile()).get().cluster("sandbox");
        for (MemberSpec m : after.members()) {
          assertThat(m.clientUrl()).startsWith("https://");
          assertThat(m.peerUrl()).startsWith("https://");
          assertThat(
                  EnableTlsTest.answersPlainHttp(
                      "http" + m.clientUrl().substring("https".length())))
              .as("%s over http", m.name())
              .isFalse();
        }
        try (ClusterProbe probe = new ClusterProbe(after)) {
          assertThat(probe.dump(0).keySet().stream().filter(k -> k.startsWith("/registry/before/")))
              .hasSize(200);
          assertThat(probe.hashKvByMember(0).values().stream().distinct()).hasSize(1);
        }
        for (String host : apiServers.hosts()) {
          assertThat(ReplaceMemberTest.status(apiServers.standIn(host).healthUrl()))
              .as("%s on https", host)
              .isEqualTo(200);
        }
        // certificates were placed once: the second worker did not place them again
        assertThat(WorkerJvm.activityCount(client, id, "TlsPlaceCertificates")).isEqualTo(6);
        assertThat(WorkerJvm.activityCount(client, id, "TlsRemovePlacedCertificates")).isZero();
      } finally {
        first.destroyForcibly();
        if (second != null) second.destroyForcibly();
        stubs.shutdownNow();
      }
    }
  }

  private Process startWorker(Sandbox sandbox, EmbeddedTemporal temporal, String name)
      throws Exception {
    return WorkerJvm.start(
        sandbox.inventoryFile(), temporal.address(), TASK_QUEUE, dir.resolve(name + ".log"));
  }

  private String log(String worker) {
    return WorkerJvm.logTail(dir.resolve(worker + ".log"));
  }
}
