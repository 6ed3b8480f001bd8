package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.activities.etcd.EtcdActivitiesImpl;
import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.activities.targets.ClusterTargets;
import io.etcdrunbooks.inventory.InventorySource;
import io.etcdrunbooks.testkit.EtcdSandboxExtension;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.workflows.backup.BackupScheduleRequest;
import io.etcdrunbooks.workflows.backup.BackupScheduleResult;
import io.etcdrunbooks.workflows.backup.BackupScheduleWorkflow;
import io.etcdrunbooks.workflows.common.CompletedStep;
import io.etcdrunbooks.workflows.common.Progress;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The backup schedule in Temporal's time-skipping test environment, taking real backups of a real
 * sandbox: its worker is shut down after the first backup and a new one takes over; the next
 * backups still come on schedule.
 */
@RealEtcd
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class BackupScheduleTest {

  private static final String QUEUE = "etcd-runbooks-schedule-test";

  /** A fresh sandbox for the test (an instance field: one per test), removed after it. */
  @RegisterExtension
  final EtcdSandboxExtension etcd =
      EtcdSandboxExtension.builder().members(3).version("3.4.23").build();

  @Test
  void theScheduleSurvivesAWorkerRestartAndTakesItsNextBackupsOnTime() throws Exception {
    try (TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance();
        SshConnector ssh = new SshConnector()) {
      InventorySource inventory = new InventorySource(etcd.inventoryFile());
      WorkerActivities activities =
          WorkerActivities.of(
              inventory,
              new EtcdActivitiesImpl(ClusterTargets.etcdOnly(inventory)),
              ssh,
              SandboxRunbooks.releases());
      WorkflowClient client = env.getWorkflowClient();
      WorkerFactory first = startWorker(client, activities);

      BackupScheduleWorkflow schedule =
          client.newWorkflowStub(
              BackupScheduleWorkflow.class,
              WorkflowOptions.newBuilder()
                  .setWorkflowId(BackupScheduleWorkflow.workflowId("sandbox"))
                  .setTaskQueue(QUEUE)
                  .build());
      WorkflowClient.start(schedule::run, new BackupScheduleRequest("sandbox", 60, 0, 3));
      awaitBackups(schedule, 1);

      first.shutdownNow();
      first.awaitTermination(30, TimeUnit.SECONDS);
      assertThat(first.isTerminated()).isTrue();
      WorkerFactory second = startWorker(client, activities);
      try {
        BackupScheduleResult result =
            WorkflowStub.fromTyped(schedule)
                .getResult(3, TimeUnit.MINUTES, BackupScheduleResult.class);

        assertThat(result.failures()).isEmpty();
        assertThat(result.backupIds()).hasSize(3).doesNotHaveDuplicates();
        for (String id : result.backupIds()) {
          assertThat(Path.of(etcd.cluster().backupDir()).resolve(id + ".db.enc")).exists();
        }
        List<Long> startedAt =
            schedule.progress().completed().stream()
                .filter(s -> s.name().startsWith("scheduled backup "))
                .map(CompletedStep::startedAtMillis)
                .toList();
        assertThat(startedAt).hasSize(3);
        long hour = Duration.ofHours(1).toMillis();
        assertThat(startedAt.get(1) - startedAt.get(0))
            .as("second backup an hour after the first")
            .isBetween(hour, hour + 60_000);
        assertThat(startedAt.get(2) - startedAt.get(0))
            .as("third backup two hours after the first")
            .isBetween(2 * hour, 2 * hour + 60_000);
      } finally {
        second.shutdownNow();
      }
    }
  }

  private static WorkerFactory startWorker(WorkflowClient client, WorkerActivities activities) {
    WorkerFactory factory = WorkerFactory.newInstance(client);
    // the test server never hands the first worker's sticky tasks to the second
    Worker worker = factory.newWorker(QUEUE, RunbookWorker.options(false));
    RunbookWorker.register(worker, activities);
    factory.start();
    return factory;
  }

  private static void awaitBackups(BackupScheduleWorkflow schedule, int count)
      throws InterruptedException {
    Instant deadline = Instant.now().plus(Duration.ofMinutes(2));
    Progress progress = null;
    while (Instant.now().isBefore(deadline)) {
      progress = schedule.progress();
      if (progress != null
          && progress.completed().stream()
                  .filter(s -> s.name().startsWith("scheduled backup "))
                  .count()
              >= count) return;
      TimeUnit.MILLISECONDS.sleep(200);
    }
    throw new AssertionError(
        "the schedule took fewer than " + count + " backups; progress " + progress);
  }
}
