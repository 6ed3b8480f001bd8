package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.testkit.Sandbox;
import io.etcdrunbooks.testkit.SandboxSpec;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.downgrade.DowngradeClusterWorkflow;
import io.etcdrunbooks.workflows.downgrade.DowngradeRequest;
import io.etcdrunbooks.workflows.downgrade.DowngradeResult;
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
 * The worker, as its own JVM, is killed with SIGKILL once a downgrade's first member runs the older
 * version; a second worker JVM finishes the same workflow without restarting a member twice.
 */
@RealEtcd
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class DowngradeWorkerCrashTest {

  private static final String TASK_QUEUE = "etcd-runbooks-downgrade-crash-test";

  @TempDir Path dir;

  @Test
  void aWorkerKilledMidDowngradeIsReplacedAndTheDowngradeFinishesWithOneRestartPerMember()
      throws Exception {
    try (Sandbox sandbox =
            Sandbox.create(
                new SandboxSpec(dir.resolve("sandbox"), "sandbox", 3, "3.6.16", Map.of()),
                SandboxRunbooks.releases());
        WorkerCrashScenario crash =
            WorkerCrashScenario.withWorker(dir, sandbox.inventoryFile(), TASK_QUEUE)) {
      try (ClusterProbe probe = new ClusterProbe(sandbox.cluster())) {
        probe.putMany("/registry/leases/l-", 50);
      }
      String id = DowngradeClusterWorkflow.workflowId("sandbox");
      DowngradeClusterWorkflow workflow = crash.workflow(DowngradeClusterWorkflow.class, id);
      WorkflowClient.start(
          workflow::downgrade,
          DowngradeRequest.to(
              "sandbox", "3.5.35", RunbookOptions.defaults().withMemberTimeoutSeconds(60)));

      String firstMember =
          crash.await(
              () -> WorkerCrashScenario.firstMemberReadyOn("3.5.35", workflow.progress()),
              Duration.ofMinutes(3),
              "member on 3.5.35");
      crash.killWorker();
      long firstMemberPid = sandbox.pidOf(firstMember);

      crash.startWorker();
      DowngradeResult result = crash.result(workflow, DowngradeResult.class, Duration.ofMinutes(4));

      assertThat(result.memberVersions())
          .containsOnly(
              Map.entry("m1", "3.5.35"), Map.entry("m2", "3.5.35"), Map.entry("m3", "3.5.35"));
      assertThat(result.clusterVersion()).isEqualTo("3.5.0");
      assertThat(crash.activityCount(id, "Enable")).as("downgrade enables scheduled").isEqualTo(1);
      assertThat(crash.activityCount(id, "RestartMember"))
          .as("one restart per member, none scheduled twice across the worker's loss")
          .isEqualTo(3);
      assertThat(sandbox.pidOf(firstMember))
          .as("%s was not restarted again", firstMember)
          .isEqualTo(firstMemberPid);
      for (MemberSpec m : sandbox.cluster().members()) {
        String log = Files.readString(Path.of(m.serviceDir(), "etcd.log"));
        assertThat(WorkerCrashScenario.count(log, "\"etcd-version\":\"3.5.35\""))
            .as("starts of %s on 3.5.35", m.name())
            .isEqualTo(1);
      }
    }
  }
}
