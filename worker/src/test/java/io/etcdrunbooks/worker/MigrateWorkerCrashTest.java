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
        EmbeddedTemporal temporal = EmbeddedTemporal.start(Ports.free())) {
      Map<String, String> written =
          new V2Writer(sandbox.cluster().member("m1").clientUrl()).kubernetes15(300, 50, 3600);
      WorkflowServiceStubs stubs =
          WorkflowServiceStubs.newServiceStubs(
              WorkflowServiceStubsOptions.newBuilder().setTarget(temporal.address()).build());
      WorkflowClient client = WorkflowClient.newInstance(stubs);
      String id = MigrateV2ToV3Workflow.workflowId("sandbox");
      Process first = startWorker(sandbox, temporal, "worker-1");
      Process second = null;
      try {
        MigrateV2ToV3Workflow workflow =
            client.newWorkflowStub(
                MigrateV2ToV3Workflow.class,
                WorkflowOptions.newBuilder().setWorkflowId(id).setTaskQueue(TASK_QUEUE).build());
        WorkflowClient.start(
            workflow::migrate,
            MigrateRequest.of(
                "sandbox",
                RunbookOptions.defaults()
                    .withApproval()
                    .withMemberTimeoutSeconds(60)
                    .withApiServerTimeoutSeconds(30)));
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
            p -> p.paused() && p.phase() == Phase.MIGRATE,
            "paused with every member stopped and copied");

        first.destroyForcibly(); // SIGKILL: no shutdown hook, no graceful worker stop
        assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();
        for (String host : apiServers.hosts()) {
          assertThat(ReplaceMemberTest.status(apiServers.standIn(host).healthUrl()))
              .as("%s stopped while the worker is gone", host)
              .isNotEqualTo(200);
        }

        second = startWorker(sandbox, temporal, "worker-2");
        workflow.resume("test");
        MigrateResult result;
        try {
          result =
              WorkflowStub.fromTyped(workflow).getResult(3, TimeUnit.MINUTES, MigrateResult.class);
        } catch (java.util.concurrent.TimeoutException e) {
          throw new AssertionError(
              "the migration did not finish on worker-2; its log:\n" + log("worker-2"));
        }

        assertThat(result.v3KeysAfter()).isEqualTo(350);
        assertThat(result.apiServersSwitched()).containsExactlyElementsOf(apiServers.hosts());
        try (ClusterProbe probe = new ClusterProbe(sandbox.cluster())) {
          MigrateV2ToV3Test.assertEveryKeyInV3(probe, written);
          assertThat(probe.hashKvByMember(0).values().stream().distinct()).hasSize(1);
        }
        for (String host : apiServers.hosts()) {
          assertThat(ReplaceMemberTest.status(apiServers.standIn(host).healthUrl()))
              .as("%s on etcd3", host)
              .isEqualTo(200);
        }
        assertThat(WorkerJvm.activityCount(client, id, "MigrationCopyDataDir")).isEqualTo(3);
        assertThat(WorkerJvm.activityCount(client, id, "MigrationMigrateMember")).isEqualTo(1);
        assertThat(WorkerJvm.activityCount(client, id, "MigrationCopyV3Store")).isEqualTo(2);
        assertThat(WorkerJvm.activityCount(client, id, "MigrationPutDataDirBack")).isZero();
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
