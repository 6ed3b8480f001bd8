package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.testkit.Sandbox;
import io.etcdrunbooks.testkit.SandboxSpec;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.upgrade.UpgradeClusterWorkflow;
import io.etcdrunbooks.workflows.upgrade.UpgradeRequest;
import io.etcdrunbooks.workflows.upgrade.UpgradeResult;
import io.temporal.client.WorkflowClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The worker runs as its own JVM, as in production, against the real Temporal server ({@code
 * temporal server start-dev} on a SQLite file). Both are killed with SIGKILL once the first member
 * is on the new version, as a lost host running both would end them; the server is started again on
 * the same file and a second worker JVM finishes the same workflow.
 */
@RealEtcd
@Timeout(value = 8, unit = TimeUnit.MINUTES)
class WorkerCrashTest {

  private static final String TASK_QUEUE = "etcd-runbooks-crash-test";

  @TempDir Path dir;

  @Test
  void theServerAndTheWorkerKilledMidUpgradeComeBackAndTheWorkflowFinishesWithoutNeedlessRestarts()
      throws Exception {
    try (Sandbox sandbox =
            Sandbox.create(
                new SandboxSpec(dir.resolve("sandbox"), "sandbox", 3, "3.4.23", Map.of()),
                SandboxRunbooks.releases());
        WorkerCrashScenario crash =
            WorkerCrashScenario.withWorkerOnRealServer(dir, sandbox.inventoryFile(), TASK_QUEUE)) {
      try (ClusterProbe probe = new ClusterProbe(sandbox.cluster())) {
        probe.putMany("/registry/leases/l-", 50);
      }
      UpgradeClusterWorkflow workflow =
          crash.workflow(
              UpgradeClusterWorkflow.class, UpgradeClusterWorkflow.workflowId("sandbox"));
      WorkflowClient.start(
          workflow::upgrade,
          UpgradeRequest.to(
              "sandbox", "3.5.16", RunbookOptions.defaults().withMemberTimeoutSeconds(60)));

      String firstMember =
          crash.await(
              () -> WorkerCrashScenario.firstMemberReadyOn("3.5.16", workflow.progress()),
              Duration.ofMinutes(3),
              "member on 3.5.16");
      crash.killWorker();
      crash.killServer();
      long firstMemberPid = sandbox.pidOf(firstMember);
      assertThat(firstMemberPid).isPositive();

      crash.restartServer();
      crash.startWorker();
      UpgradeResult result = crash.result(workflow, UpgradeResult.class, Duration.ofMinutes(4));

      assertThat(crash.fullLog())
          .as("the worker keeps sticky execution on with a real server")
          .contains("sticky execution on");
      String id = UpgradeClusterWorkflow.workflowId("sandbox");
      assertThat(crash.activityCount(id, "RestartMember"))
          .as("one restart per member, none scheduled twice across the server's loss")
          .isEqualTo(3);
      assertThat(result.memberVersions())
          .containsOnly(
              Map.entry("m1", "3.5.16"), Map.entry("m2", "3.5.16"), Map.entry("m3", "3.5.16"));
      assertThat(sandbox.pidOf(firstMember))
          .as("%s was not restarted again", firstMember)
          .isEqualTo(firstMemberPid);
      assertThat(result.restartedMembers().get("3.4.23 -> 3.5.16"))
          .containsExactlyInAnyOrder("m1", "m2", "m3");
      for (MemberSpec m : sandbox.cluster().members()) {
        String log = Files.readString(Path.of(m.serviceDir(), "etcd.log"));
        assertThat(WorkerCrashScenario.count(log, "etcd Version: 3.4.23"))
            .as("starts of %s on 3.4.23", m.name())
            .isEqualTo(1);
        assertThat(WorkerCrashScenario.count(log, "\"etcd-version\":\"3.5.16\""))
            .as("starts of %s on 3.5.16", m.name())
            .isEqualTo(1);
      }
    }
  }
}
