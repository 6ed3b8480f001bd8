package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.inventory.InventorySource;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.testkit.ControlPlaneStandIns;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.testkit.Sandbox;
import io.etcdrunbooks.testkit.SandboxSpec;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.recover.RecoverQuorumRequest;
import io.etcdrunbooks.workflows.recover.RecoverQuorumResult;
import io.etcdrunbooks.workflows.recover.RecoverQuorumWorkflow;
import io.temporal.client.WorkflowClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The worker runs as its own JVM and is killed with SIGKILL in the middle of RecoverQuorum: the
 * survivor already a cluster of one and the apiservers back on it, no lost member rebuilt yet (held
 * there by a pause signal); the apiservers keep serving while no worker runs, and a second worker
 * JVM finishes the recovery, each step done once.
 */
@RealEtcd
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class RecoverQuorumWorkerCrashTest {

  private static final String TASK_QUEUE = "etcd-runbooks-recover-crash-test";

  @TempDir Path dir;

  @Test
  void aWorkerKilledWithTheSurvivorAloneIsReplacedAndTheRecoveryFinishesOnce() throws Exception {
    try (Sandbox sandbox =
            Sandbox.create(
                new SandboxSpec(dir.resolve("sandbox"), "sandbox", 3, "3.5.30"),
                SandboxRunbooks.releases());
        ControlPlaneStandIns apiServers = ControlPlaneStandIns.attach(sandbox);
        WorkerCrashScenario crash =
            WorkerCrashScenario.start(dir, sandbox.inventoryFile(), TASK_QUEUE)) {
      Map<String, ClusterProbe.StoredKey> keys;
      try (ClusterProbe probe = new ClusterProbe(sandbox.cluster())) {
        probe.putManyUnordered("/registry/pods/default/p-", 200);
        keys = probe.dump(0);
      }
      for (String lost : List.of("m2", "m3")) destroy(sandbox, lost);
      String id = RecoverQuorumWorkflow.workflowId("sandbox");
      crash.startWorker();
      RecoverQuorumWorkflow workflow = crash.workflow(RecoverQuorumWorkflow.class, id);
      WorkflowClient.start(
          workflow::recover,
          RecoverQuorumRequest.of(
                  "sandbox",
                  RunbookOptions.defaults()
                      .withMemberTimeoutSeconds(60)
                      .withApiServerTimeoutSeconds(30))
              .acknowledgingDataLoss()
              .confirmingLossFor(3));
      crash.awaitProgress(
          workflow::progress, p -> p.phase() == Phase.AWAITING_APPROVAL, "awaiting approval");
      workflow.pause("test");
      workflow.approve("test-admin");
      crash.awaitProgress(
          workflow::progress,
          p -> p.paused() && p.phase() == Phase.JOIN,
          "paused with the survivor alone, before the first rebuilt member");

      crash.killWorker();
      for (String host : apiServers.hosts()) {
        assertThat(HttpProbe.status(apiServers.standIn(host).healthUrl()))
            .as("%s serves on the survivor while the worker is gone", host)
            .isEqualTo(200);
      }

      crash.startWorker();
      workflow.resume("test");
      RecoverQuorumResult result =
          crash.result(workflow, RecoverQuorumResult.class, Duration.ofMinutes(3));

      assertThat(result.outcome()).isEqualTo(RecoverQuorumResult.RECOVERED);
      assertThat(result.survivor()).isEqualTo("m1");
      assertThat(result.rebuilt()).containsEntry("m2", "m2-r1").containsEntry("m3", "m3-r1");
      var now = new InventorySource(sandbox.inventoryFile()).get().cluster("sandbox");
      assertThat(now.members())
          .extracting(MemberSpec::name)
          .containsExactly("m1", "m2-r1", "m3-r1");
      try (ClusterProbe probe = new ClusterProbe(now)) {
        assertThat(probe.dump(0)).containsAllEntriesOf(keys);
        assertThat(probe.hashKvByMember(0).values().stream().distinct()).hasSize(1);
      }
      for (String host : apiServers.hosts()) {
        assertThat(HttpProbe.status(apiServers.standIn(host).healthUrl()))
            .as("%s back", host)
            .isEqualTo(200);
      }
      assertThat(crash.activityCount(id, "RecoveryCopyDataDir")).isEqualTo(1);
      // the survivor rebuilt once, with its revision raised, not forced with a flag
      assertThat(crash.activityCount(id, "RecoveryRestoreSurvivor")).isEqualTo(1);
      assertThat(crash.activityCount(id, "SetMemberFlags")).isZero();
      assertThat(crash.activityCount(id, "NewMemberPrepare")).isEqualTo(2);
    }
  }

  /** What a dead machine leaves behind: the member's etcd SIGKILLed and its data dir gone. */
  private static void destroy(Sandbox sandbox, String member) throws Exception {
    Path data = Path.of(sandbox.cluster().member(member).dataDir());
    sandbox.kill(member);
    try (var paths = Files.walk(data)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) Files.delete(p);
    }
  }
}
