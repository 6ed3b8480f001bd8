package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.activities.etcd.EtcdActivitiesImpl;
import io.etcdrunbooks.inventory.InventorySource;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.testkit.Sandbox;
import io.etcdrunbooks.testkit.SandboxSpec;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.replacemember.ReplaceMemberRequest;
import io.etcdrunbooks.workflows.replacemember.ReplaceMemberResult;
import io.etcdrunbooks.workflows.replacemember.ReplaceMemberWorkflow;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The worker runs as its own JVM and is killed with SIGKILL after the failed member was removed and
 * before the new one is added (held there by a pause signal); a second worker JVM finishes the
 * replacement.
 */
@RealEtcd
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class ReplaceMemberWorkerCrashTest {

  private static final String TASK_QUEUE = "etcd-runbooks-replace-crash-test";

  @TempDir Path dir;

  @Test
  void aWorkerKilledBetweenRemoveAndAddIsReplacedAndTheRunbookFinishesWithOneRemovalAndOneAdd()
      throws Exception {
    try (Sandbox sandbox =
            Sandbox.create(
                new SandboxSpec(dir.resolve("sandbox"), "sandbox", 3, "3.5.16"),
                SandboxRunbooks.releases());
        EmbeddedTemporal temporal = EmbeddedTemporal.start(Ports.free())) {
      InventorySource inventory = new InventorySource(sandbox.inventoryFile());
      Map<String, ClusterProbe.StoredKey> keys;
      try (ClusterProbe probe = new ClusterProbe(sandbox.cluster())) {
        probe.putMany("/registry/leases/l-", 100);
        keys = probe.dump(0);
      }
      sandbox.kill("m2");
      WorkflowServiceStubs stubs =
          WorkflowServiceStubs.newServiceStubs(
              WorkflowServiceStubsOptions.newBuilder().setTarget(temporal.address()).build());
      WorkflowClient client = WorkflowClient.newInstance(stubs);
      String id = ReplaceMemberWorkflow.workflowId("sandbox");
      Process first = startWorker(sandbox, temporal, "worker-1");
      Process second = null;
      try {
        ReplaceMemberWorkflow workflow =
            client.newWorkflowStub(
                ReplaceMemberWorkflow.class,
                WorkflowOptions.newBuilder().setWorkflowId(id).setTaskQueue(TASK_QUEUE).build());
        WorkflowClient.start(
            workflow::replace, ReplaceMemberRequest.onSameHost("sandbox", "m2", true, "test"));
        WorkerJvm.awaitProgress(
            workflow::progress,
            first,
            dir.resolve("worker-1.log"),
            p -> p.phase() == Phase.AWAITING_APPROVAL,
            "awaiting approval");
        workflow.pause("test");
        workflow.approve("test");
        WorkerJvm.awaitProgress(
            workflow::progress,
            first,
            dir.resolve("worker-1.log"),
            p -> p.paused() && p.phase() == Phase.JOIN,
            "paused after the removal");

        first.destroyForcibly(); // SIGKILL: no shutdown hook, no graceful worker stop
        assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();
        try (ClusterProbe probe = new ClusterProbe(sandbox.cluster())) {
          assertThat(
                  probe
                      .client()
                      .getClusterClient()
                      .listMember()
                      .get(10, TimeUnit.SECONDS)
                      .getMembers())
              .extracting(m -> m.getName())
              .containsExactlyInAnyOrder("m1", "m3");
        }

        second = startWorker(sandbox, temporal, "worker-2");
        workflow.resume("test");
        ReplaceMemberResult result;
        try {
          result =
              WorkflowStub.fromTyped(workflow)
                  .getResult(3, TimeUnit.MINUTES, ReplaceMemberResult.class);
        } catch (java.util.concurrent.TimeoutException e) {
          throw new AssertionError(
              "the replacement did not finish on worker-2; its log:\n" + log("worker-2"));
        }

        assertThat(result.outcome()).isEqualTo(ReplaceMemberResult.REPLACED);
        assertThat(inventory.get().cluster("sandbox").members())
            .extracting(MemberSpec::name)
            .containsExactly("m1", "m2-r1", "m3");
        assertThat(new EtcdActivitiesImpl(inventory).discover(new ClusterRef("sandbox")).members())
            .allSatisfy(
                m -> assertThat(m.healthy()).as("%s healthy: %s", m.name(), m.errors()).isTrue());
        try (ClusterProbe probe = new ClusterProbe(inventory.get().cluster("sandbox"))) {
          assertThat(
                  probe
                      .client()
                      .getClusterClient()
                      .listMember()
                      .get(10, TimeUnit.SECONDS)
                      .getMembers())
              .extracting(m -> m.getName())
              .containsExactlyInAnyOrder("m1", "m2-r1", "m3");
          assertThat(probe.dump(0)).containsAllEntriesOf(keys);
          Map<String, Long> hashes = probe.hashKvByMember(probe.revision());
          assertThat(hashes.values().stream().distinct()).hasSize(1);
        }
        assertThat(WorkerJvm.activityCount(client, id, "RemoveMember")).isEqualTo(1);
        assertThat(WorkerJvm.activityCount(client, id, "AddMember")).isEqualTo(1);
        assertThat(WorkerJvm.activityCount(client, id, "NewMemberStart")).isEqualTo(1);
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
