package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.inventory.BackupSpec;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.Inventory;
import io.etcdrunbooks.inventory.InventoryLoader;
import io.etcdrunbooks.testkit.Ports;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.testkit.Sandbox;
import io.etcdrunbooks.testkit.SandboxSpec;
import io.etcdrunbooks.testkit.TemporalDevServer;
import io.etcdrunbooks.workflows.model.BackupRecord;
import io.micronaut.context.ApplicationContext;
import io.temporal.api.enums.v1.ScheduleOverlapPolicy;
import io.temporal.client.WorkflowClient;
import io.temporal.client.schedules.Schedule;
import io.temporal.client.schedules.ScheduleActionExecutionStartWorkflow;
import io.temporal.client.schedules.ScheduleActionResult;
import io.temporal.client.schedules.ScheduleActionStartWorkflow;
import io.temporal.client.schedules.ScheduleBackfill;
import io.temporal.client.schedules.ScheduleClient;
import io.temporal.client.schedules.ScheduleClientOptions;
import io.temporal.client.schedules.ScheduleDescription;
import io.temporal.client.schedules.ScheduleHandle;
import io.temporal.client.schedules.ScheduleIntervalSpec;
import io.temporal.client.schedules.ScheduleOptions;
import io.temporal.client.schedules.ScheduleSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 30, test 7, on the real Temporal server ({@code temporal server start-dev}; Temporal's Java
 * test server has no schedules): a worker's start gives every inventoried cluster its backup and
 * drill schedules, a second start changes nothing and leaves a paused one paused, a cluster gone
 * from the inventory loses its schedules and a schedule we did not make stays; the backup schedule
 * takes backups of a real 1-member cluster at its interval (its minutes of the last three, as
 * Temporal's backfill starts them, without waiting for the clock).
 */
@RealEtcd
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class RunbookSchedulesTest {

  private static final String TASK_QUEUE = "etcd-runbooks-schedules";

  @TempDir Path dir;

  @Test
  void everyInventoriedClusterGetsItsSchedulesOnceAndTheBackupScheduleTakesBackupsAtItsInterval()
      throws Exception {
    try (TemporalDevServer temporal = TemporalDevServer.start(dir.resolve("temporal"));
        Sandbox sandbox =
            Sandbox.create(
                new SandboxSpec(dir.resolve("sandbox"), "sandbox", 1, "3.5.30"),
                SandboxRunbooks.releases())) {
      ClusterSpec c = sandbox.cluster();
      BackupSpec b = c.backup();
      ClusterSpec everyMinute =
          new ClusterSpec(
              c.name(),
              c.members(),
              c.service(),
              c.ssh(),
              c.tls(),
              c.backupDir(),
              c.controlPlane(),
              new BackupSpec(b.encrypt(), b.keyFile(), b.keyId(), null, null, 1, null));
      ClusterSpec other =
          new ClusterSpec(
              "other",
              c.members(),
              c.service(),
              c.ssh(),
              c.tls(),
              dir.resolve("other-backups").toString(),
              c.controlPlane(),
              b);
      Path inventoryFile = sandbox.inventoryFile();
      Inventory inventory = sandbox.inventory();
      InventoryLoader.write(
          new Inventory(inventory.releases(), Map.of("sandbox", everyMinute, "other", other)),
          inventoryFile);

      ApplicationContext worker =
          Main.start(
              List.of("worker"),
              Map.of(
                  "runbooks.inventory", inventoryFile.toString(),
                  "runbooks.task-queue", TASK_QUEUE,
                  "temporal.address", temporal.address(),
                  "micronaut.server.port", Ports.free()));
      try {
        WorkflowClient client = worker.getBean(WorkflowClient.class);
        ScheduleClient schedules =
            ScheduleClient.newInstance(
                client.getWorkflowServiceStubs(),
                ScheduleClientOptions.newBuilder()
                    .setNamespace(client.getOptions().getNamespace())
                    .build());

        Map<String, Duration> expected =
            Map.of(
                "etcd-runbooks-backup-sandbox", Duration.ofMinutes(1),
                "etcd-runbooks-drill-sandbox", Duration.ofDays(7),
                "etcd-runbooks-backup-other", Duration.ofHours(1),
                "etcd-runbooks-drill-other", Duration.ofDays(7));
        expected.forEach(
            (id, every) -> {
              ScheduleDescription d = schedules.getHandle(id).describe();
              Schedule s = d.getSchedule();
              assertThat(s.getSpec().getIntervals())
                  .extracting(i -> i.getEvery())
                  .containsExactly(every);
              assertThat(s.getPolicy().getOverlap())
                  .isEqualTo(ScheduleOverlapPolicy.SCHEDULE_OVERLAP_POLICY_SKIP);
              assertThat(((ScheduleActionStartWorkflow) s.getAction()).getWorkflowType())
                  .isEqualTo(id.contains("-drill-") ? "RestoreDrill" : "BackupCluster");
              assertThat(((ScheduleActionStartWorkflow) s.getAction()).getOptions().getTaskQueue())
                  .isEqualTo(TASK_QUEUE);
              assertThat(d.getMemo(RunbookSchedules.MANAGED_BY, String.class))
                  .isEqualTo("etcd-runbooks");
              assertThat(s.getState().isPaused()).isFalse();
            });
        List<Instant> next =
            schedules
                .getHandle("etcd-runbooks-backup-sandbox")
                .describe()
                .getInfo()
                .getNextActionTimes();
        assertThat(next).hasSizeGreaterThan(1);
        assertThat(Duration.between(next.get(0), next.get(1))).isEqualTo(Duration.ofMinutes(1));

        // the minutes of the last three, started now one after another by the server
        ScheduleHandle backups = schedules.getHandle("etcd-runbooks-backup-sandbox");
        Instant end = Instant.now().truncatedTo(ChronoUnit.MINUTES);
        backups.backfill(
            List.of(
                new ScheduleBackfill(
                    end.minus(Duration.ofMinutes(3)),
                    end.minusSeconds(1),
                    ScheduleOverlapPolicy.SCHEDULE_OVERLAP_POLICY_BUFFER_ALL)));
        List<ScheduleActionResult> taken = awaitActions(backups, 3);
        List<Instant> times =
            taken.stream().map(ScheduleActionResult::getScheduledAt).sorted().toList();
        assertThat(Duration.between(times.get(0), times.get(1))).isEqualTo(Duration.ofMinutes(1));
        assertThat(Duration.between(times.get(1), times.get(2))).isEqualTo(Duration.ofMinutes(1));
        List<String> kept = new ArrayList<>();
        for (ScheduleActionResult r : taken) {
          String workflowId =
              ((ScheduleActionExecutionStartWorkflow) r.getAction()).getWorkflowId();
          assertThat(workflowId).startsWith("backup-sandbox-");
          BackupRecord record =
              client
                  .newUntypedWorkflowStub(workflowId)
                  .getResult(60, TimeUnit.SECONDS, BackupRecord.class);
          assertThat(Path.of(c.backupDir()).resolve(record.id() + ".json")).exists();
          kept.add(record.id());
        }
        assertThat(kept).doesNotHaveDuplicates();

        // a second worker start changes nothing, and leaves a paused schedule paused
        schedules.getHandle("etcd-runbooks-drill-other").pause("held by the on-call");
        RunbookSchedules keeper = worker.getBean(RunbookSchedules.class);
        RunbookSchedules.Outcome again = keeper.reconcile();
        assertThat(again.created()).isEmpty();
        assertThat(again.updated()).isEmpty();
        assertThat(again.deleted()).isEmpty();
        assertThat(again.unchanged()).containsExactlyInAnyOrderElementsOf(expected.keySet());
        assertThat(
                schedules
                    .getHandle("etcd-runbooks-drill-other")
                    .describe()
                    .getSchedule()
                    .getState())
            .satisfies(s -> assertThat(s.isPaused()).isTrue())
            .satisfies(s -> assertThat(s.getNote()).isEqualTo("held by the on-call"));

        // "other" leaves the inventory: its schedules go, one we did not make stays
        schedules.createSchedule(
            "etcd-runbooks-backup-ghost",
            Schedule.newBuilder(
                    schedules.getHandle("etcd-runbooks-backup-other").describe().getSchedule())
                .setSpec(
                    ScheduleSpec.newBuilder()
                        .setIntervals(List.of(new ScheduleIntervalSpec(Duration.ofDays(1))))
                        .build())
                .build(),
            ScheduleOptions.newBuilder().build());
        InventoryLoader.write(
            new Inventory(inventory.releases(), Map.of("sandbox", everyMinute)), inventoryFile);
        // the inventory is read again when its modification time changes
        Files.setLastModifiedTime(inventoryFile, FileTime.from(Instant.now().plusSeconds(2)));
        List<String> deleted = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (deleted.size() < 2 && System.nanoTime() < deadline) {
          // the list of schedules is Temporal's visibility store, a moment behind
          deleted.addAll(keeper.reconcile().deleted());
          if (deleted.size() < 2) Thread.sleep(500);
        }
        assertThat(deleted)
            .containsExactlyInAnyOrder("etcd-runbooks-backup-other", "etcd-runbooks-drill-other");
        assertThat(schedules.getHandle("etcd-runbooks-backup-ghost").describe()).isNotNull();
        assertThat(keeper.reconcile().unchanged())
            .containsExactlyInAnyOrder(
                "etcd-runbooks-backup-sandbox", "etcd-runbooks-drill-sandbox");
      } finally {
        worker.close();
      }
    }
  }

  private static List<ScheduleActionResult> awaitActions(ScheduleHandle handle, int count)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      Map<Instant, ScheduleActionResult> byTime = new HashMap<>();
      handle
          .describe()
          .getInfo()
          .getRecentActions()
          .forEach(a -> byTime.put(a.getScheduledAt(), a));
      if (byTime.size() >= count || System.nanoTime() > deadline) {
        return byTime.values().stream()
            .sorted(Comparator.comparing(ScheduleActionResult::getScheduledAt))
            .toList();
      }
      Thread.sleep(200);
    }
  }
}
