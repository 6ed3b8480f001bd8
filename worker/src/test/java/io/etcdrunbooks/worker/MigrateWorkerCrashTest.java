package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.testkit.ControlPlaneStandIns;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.testkit.Sandbox;
import io.etcdrunbooks.testkit.SandboxSpec;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.migrate.MigrateRequest;
import io.etcdrunbooks.workflows.migrate.MigrateResult;
import io.etcdrunbooks.workflows.migrate.MigrateV2ToV3Workflow;
import io.temporal.client.WorkflowClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The worker runs as its own JVM and is killed with SIGKILL in the middle of a v2 -> v3 migration,
 * with every kube-apiserver and member stopped and their data dirs copied (held there by a pause
 * signal); a second worker JVM finishes the migration.
 */
@RealEtcd
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class MigrateWorkerCrashTest {

  private static final String TASK_QUEUE = "etcd-runbooks-migrate-crash-test";

  @TempDir Path dir;

  @Test
  void aWorkerKilledWithTheWholeClusterStoppedIsReplacedAndTheMigrationFinishesOnce()
      throws Exception {
    try (Sandbox sandbox =
            Sandbox.create(
                new SandboxSpec(dir.resolve("sandbox"), "sandbox", 3, "3.3.25"),
                SandboxRunbooks.releases());
        ControlPlaneStandIns apiServers = ControlPlaneStandIns.attach(sandbox, "etcd2");
        WorkerCrashScenario crash =
            WorkerCrashScenario.withWorker(dir, sandbox.inventoryFile(), TASK_QUEUE)) {
      Map<String, String> written =
          new V2Writer(sandbox.cluster().member("m1").clientUrl()).kubernetes15(300, 50, 3600);
      String id = MigrateV2ToV3Workflow.workflowId("sandbox");
      MigrateV2ToV3Workflow workflow = crash.workflow(MigrateV2ToV3Workflow.class, id);
      WorkflowClient.start(
          workflow::migrate,
          MigrateRequest.of(
              "sandbox",
              RunbookOptions.defaults()
                  .withApproval()
                  .withMemberTimeoutSeconds(60)
                  .withApiServerTimeoutSeconds(30)));
      crash.awaitProgress(
          workflow::progress, p -> p.phase() == Phase.AWAITING_APPROVAL, "awaiting approval");
      workflow.pause("test");
      workflow.approve("test");
      crash.awaitProgress(
          workflow::progress,
          p -> p.paused() && p.phase() == Phase.MIGRATE,
          "paused with every member stopped and copied");

      crash.killWorker();
      for (String host : apiServers.hosts()) {
        assertThat(HttpProbe.status(apiServers.standIn(host).healthUrl()))
            .as("%s stopped while the worker is gone", host)
            .isNotEqualTo(200);
      }

      crash.startWorker();
      workflow.resume("test");
      MigrateResult result = crash.result(workflow, MigrateResult.class, Duration.ofMinutes(3));

      assertThat(result.v3KeysAfter()).isEqualTo(350);
      assertThat(result.apiServersSwitched()).containsExactlyElementsOf(apiServers.hosts());
      try (ClusterProbe probe = new ClusterProbe(sandbox.cluster())) {
        ClusterAssertions.assertEveryKeyInV3(probe, written);
        assertThat(probe.hashKvByMember(0).values().stream().distinct()).hasSize(1);
      }
      for (String host : apiServers.hosts()) {
        assertThat(HttpProbe.status(apiServers.standIn(host).healthUrl()))
            .as("%s on etcd3", host)
            .isEqualTo(200);
      }
      assertThat(crash.activityCount(id, "MigrationCopyDataDir")).isEqualTo(3);
      assertThat(crash.activityCount(id, "MigrationMigrateMember")).isEqualTo(1);
      assertThat(crash.activityCount(id, "MigrationCopyV3Store")).isEqualTo(2);
      assertThat(crash.activityCount(id, "MigrationPutDataDirBack")).isZero();
    }
  }
}
