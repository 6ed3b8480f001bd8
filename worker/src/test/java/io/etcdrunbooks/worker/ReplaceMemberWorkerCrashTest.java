package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.activities.etcd.EtcdActivitiesImpl;
import io.etcdrunbooks.activities.targets.ClusterTargets;
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
import java.nio.file.Path;
import java.time.Duration;
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
        WorkerCrashScenario crash =
            WorkerCrashScenario.start(dir, sandbox.inventoryFile(), TASK_QUEUE)) {
      InventorySource inventory = new InventorySource(sandbox.inventoryFile());
      Map<String, ClusterProbe.StoredKey> keys;
      try (ClusterProbe probe = new ClusterProbe(sandbox.cluster())) {
        probe.putMany("/registry/leases/l-", 100);
        keys = probe.dump(0);
      }
      sandbox.kill("m2");
      String id = ReplaceMemberWorkflow.workflowId("sandbox");
      crash.startWorker();
      ReplaceMemberWorkflow workflow = crash.workflow(ReplaceMemberWorkflow.class, id);
      WorkflowClient.start(
          workflow::replace, ReplaceMemberRequest.onSameHost("sandbox", "m2", true, "test"));
      crash.awaitProgress(
          workflow::progress, p -> p.phase() == Phase.AWAITING_APPROVAL, "awaiting approval");
      workflow.pause("test");
      workflow.approve("test");
      crash.awaitProgress(
          workflow::progress,
          p -> p.paused() && p.phase() == Phase.JOIN,
          "paused after the removal");

      crash.killWorker();
      try (ClusterProbe probe = new ClusterProbe(sandbox.cluster())) {
        assertThat(probe.members())
            .extracting(m -> m.getName())
            .containsExactlyInAnyOrder("m1", "m3");
      }

      crash.startWorker();
      workflow.resume("test");
      ReplaceMemberResult result =
          crash.result(workflow, ReplaceMemberResult.class, Duration.ofMinutes(3));

      assertThat(result.outcome()).isEqualTo(ReplaceMemberResult.REPLACED);
      assertThat(inventory.get().cluster("sandbox").members())
          .extracting(MemberSpec::name)
          .containsExactly("m1", "m2-r1", "m3");
      assertThat(
              new EtcdActivitiesImpl(ClusterTargets.etcdOnly(inventory))
                  .discover(new ClusterRef("sandbox"))
                  .members())
          .allSatisfy(
              m -> assertThat(m.healthy()).as("%s healthy: %s", m.name(), m.errors()).isTrue());
      try (ClusterProbe probe = new ClusterProbe(inventory.get().cluster("sandbox"))) {
        assertThat(probe.members())
            .extracting(m -> m.getName())
            .containsExactlyInAnyOrder("m1", "m2-r1", "m3");
        assertThat(probe.dump(0)).containsAllEntriesOf(keys);
        Map<String, Long> hashes = probe.hashKvByMember(probe.revision());
        assertThat(hashes.values().stream().distinct()).hasSize(1);
      }
      assertThat(crash.activityCount(id, "RemoveMember")).isEqualTo(1);
      assertThat(crash.activityCount(id, "AddMember")).isEqualTo(1);
      assertThat(crash.activityCount(id, "NewMemberStart")).isEqualTo(1);
    }
  }
}
