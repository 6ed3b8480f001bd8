package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdrunbooks.api.testing.TestTokens;
import io.etcdrunbooks.inventory.BackupSpec;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.Inventory;
import io.etcdrunbooks.inventory.InventoryLoader;
import io.etcdrunbooks.runtime.schedules.RunbookSchedules;
import io.etcdrunbooks.testkit.Ports;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.testkit.Sandbox;
import io.etcdrunbooks.testkit.SandboxSpec;
import io.etcdrunbooks.testkit.TemporalDevServer;
import io.etcdrunbooks.workflows.backup.BackupScheduleResult;
import io.etcdrunbooks.workflows.maintenance.MaintenanceScheduleResult;
import io.etcdrunbooks.workflows.model.BackupRecord;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;
import io.temporal.api.enums.v1.ScheduleOverlapPolicy;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowNotFoundException;
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
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 30, test 7, on the real Temporal server ({@code temporal server start-dev}; Temporal's Java
 * test server has no schedules), one server, one real 1-member cluster and one worker (with the
 * API) for every method, in order: a worker's start gives every inventoried cluster its backup and
 * drill schedules; the backup schedule takes backups of the cluster at its interval (its minutes of
 * the last three, as Temporal's backfill starts them, without waiting for the clock); a scheduled
 * backup due while a manual one runs takes none and names it; the API's backup-schedule applies the
 * inventory's schedule now and refuses another interval; the API's maintenance-schedule makes a
 * Temporal Schedule whose rounds compact only history older than asked, round by round (backfilled
 * slots a minute apart); a second start changes nothing and leaves a paused one paused, a cluster
 * gone from the inventory loses its schedules and a schedule we did not make stays.
 */
@RealEtcd
@Timeout(value = 4, unit = TimeUnit.MINUTES)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RunbookSchedulesTest {

  private static final String TASK_QUEUE = "etcd-runbooks-schedules";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final TestTokens.Token OPERATOR = TestTokens.OPERATOR;

  @TempDir static Path dir;

  private TemporalDevServer temporal;
  private Sandbox sandbox;
  private ApplicationContext worker;
  private WorkflowClient client;
  private ScheduleClient schedules;
  private String api;
  private Path inventoryFile;
  private Inventory inventory;
  private ClusterSpec everyMinute;
  private final HttpClient http = HttpClient.newHttpClient();

  private static final Map<String, Duration> EXPECTED =
      Map.of(
          "etcd-runbooks-backup-sandbox", Duration.ofMinutes(1),
          "etcd-runbooks-drill-sandbox", Duration.ofDays(7),
          "etcd-runbooks-backup-other", Duration.ofHours(1),
          "etcd-runbooks-drill-other", Duration.ofDays(7));

  @BeforeAll
  void start() throws Exception {
    temporal = TemporalDevServer.start(dir.resolve("temporal"));
    sandbox =
        Sandbox.create(
            new SandboxSpec(dir.resolve("sandbox"), "sandbox", 1, "3.5.30"),
            SandboxRunbooks.releases());
    ClusterSpec c = sandbox.cluster();
    everyMinute = withInterval(c, 1);
    ClusterSpec other =
        new ClusterSpec(
            "other",
            c.members(),
            c.service(),
            c.ssh(),
            c.tls(),
            dir.resolve("other-backups").toString(),
            c.controlPlane(),
            c.backup());
    inventoryFile = sandbox.inventoryFile();
    inventory = sandbox.inventory();
    InventoryLoader.write(
        new Inventory(inventory.releases(), Map.of("sandbox", everyMinute, "other", other)),
        inventoryFile);
    Path tokens = TestTokens.write(dir.resolve("api-tokens.yaml"), OPERATOR);
    worker =
        Main.start(
            List.of("worker", "api"),
            Map.of(
                "runbooks.inventory", inventoryFile.toString(),
                "runbooks.task-queue", TASK_QUEUE,
                "runbooks.api.tokens-file", tokens.toString(),
                "temporal.address", temporal.address(),
                "micronaut.server.port", Ports.free()));
    client = worker.getBean(WorkflowClient.class);
    api = worker.getBean(EmbeddedServer.class).getURL().toString();
    schedules =
        ScheduleClient.newInstance(
            client.getWorkflowServiceStubs(),
            ScheduleClientOptions.newBuilder()
                .setNamespace(client.getOptions().getNamespace())
                .setDataConverter(client.getOptions().getDataConverter())
                .build());
  }

  @AfterAll
  void stop() {
    if (worker != null) worker.close();
    if (sandbox != null) sandbox.close();
    if (temporal != null) temporal.close();
  }

  @Test
  @Order(1)
  void everyInventoriedClusterGetsItsSchedulesAndTheBackupScheduleTakesBackupsAtItsInterval()
      throws Exception {
    EXPECTED.forEach(
        (id, every) -> {
          ScheduleDescription d = schedules.getHandle(id).describe();
          Schedule s = d.getSchedule();
          assertThat(s.getSpec().getIntervals())
              .extracting(i -> i.getEvery())
              .containsExactly(every);
          assertThat(s.getPolicy().getOverlap())
              .isEqualTo(ScheduleOverlapPolicy.SCHEDULE_OVERLAP_POLICY_SKIP);
          assertThat(((ScheduleActionStartWorkflow) s.getAction()).getWorkflowType())
              .isEqualTo(id.contains("-drill-") ? "RestoreDrill" : "BackupSchedule");
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
    List<ScheduleActionResult> taken = awaitActions(backups, end.minus(Duration.ofMinutes(3)), 3);
    List<Instant> times =
        taken.stream().map(ScheduleActionResult::getScheduledAt).sorted().toList();
    assertThat(Duration.between(times.get(0), times.get(1))).isEqualTo(Duration.ofMinutes(1));
    assertThat(Duration.between(times.get(1), times.get(2))).isEqualTo(Duration.ofMinutes(1));
    List<String> kept = new ArrayList<>();
    for (ScheduleActionResult r : taken.subList(0, 3)) {
      BackupScheduleResult round = result(r, BackupScheduleResult.class);
      assertThat(round.failures()).isEmpty();
      assertThat(round.backupIds()).hasSize(1);
      assertThat(Path.of(everyMinute.backupDir()).resolve(round.backupIds().get(0) + ".json"))
          .exists();
      kept.addAll(round.backupIds());
    }
    assertThat(kept).doesNotHaveDuplicates();
  }

  /**
   * The schedule's backup runs under the id a manual backup takes ({@code backup-<cluster>}): a
   * slot due while a manual backup waits for its approval takes no backup of its own and names the
   * manual one (before, it took a second backup beside it).
   */
  @Test
  @Order(2)
  void aScheduledBackupDueWhileAManualOneRunsTakesNoneAndNamesIt() throws Exception {
    Answer manual = post("/api/v1/clusters/sandbox/backup", "{\"requireApproval\":true}");
    for (int i = 0; manual.status() == 409 && i < 60; i++) {
      // a slot of the minute's schedule holds backup-sandbox for a second or two
      Thread.sleep(500);
      manual = post("/api/v1/clusters/sandbox/backup", "{\"requireApproval\":true}");
    }
    assertThat(manual.status()).as(manual.text()).isEqualTo(202);
    assertThat(manual.body().path("workflowId").asText()).isEqualTo("backup-sandbox");
    long before = backupFiles();
    Instant triggered = Instant.now();

    ScheduleHandle backups = schedules.getHandle("etcd-runbooks-backup-sandbox");
    backups.trigger(ScheduleOverlapPolicy.SCHEDULE_OVERLAP_POLICY_ALLOW_ALL);
    ScheduleActionResult slot = awaitActions(backups, triggered.minusSeconds(1), 1).get(0);
    BackupScheduleResult round = result(slot, BackupScheduleResult.class);

    assertThat(round.backupIds()).isEmpty();
    assertThat(round.failures())
        .singleElement()
        .asString()
        .contains("skipped: a backup of sandbox already runs as workflow backup-sandbox");
    assertThat(backupFiles()).as("no backup taken meanwhile").isEqualTo(before);

    Answer approved = post("/api/v1/runbooks/backup-sandbox/approve", "{}");
    assertThat(approved.status()).as(approved.text()).isEqualTo(202);
    BackupRecord record =
        client
            .newUntypedWorkflowStub("backup-sandbox")
            .getResult(60, TimeUnit.SECONDS, BackupRecord.class);
    assertThat(Path.of(everyMinute.backupDir()).resolve(record.id() + ".json")).exists();
  }

  /**
   * One backup schedule per cluster, the inventory's: the API applies it now (no loop beside it),
   * refuses another interval naming the inventory's setting, and applies a changed inventory at
   * once, keeping a pause.
   */
  @Test
  @Order(3)
  void theBackupScheduleEndpointAppliesTheInventorysScheduleAndRefusesAnotherInterval()
      throws Exception {
    Answer same = post("/api/v1/clusters/sandbox/backup-schedule", "{}");
    assertThat(same.status()).as(same.text()).isEqualTo(200);
    assertThat(same.body().path("scheduleId").asText()).isEqualTo("etcd-runbooks-backup-sandbox");
    assertThat(same.body().path("applied").asText()).isEqualTo("unchanged");
    assertThat(same.body().path("intervalMinutes").asLong()).isEqualTo(1);
    assertThat(same.body().path("nextActionTimes")).isNotEmpty();
    assertThatThrownBy(() -> client.newUntypedWorkflowStub("backup-schedule-sandbox").describe())
        .as("no BackupSchedule loop started")
        .isInstanceOf(WorkflowNotFoundException.class);

    Answer other = post("/api/v1/clusters/sandbox/backup-schedule", "{\"intervalMinutes\":30}");
    assertThat(other.status()).as(other.text()).isEqualTo(409);
    assertThat(other.body().path("message").asText())
        .contains("backup.intervalMinutes (1)", "backup.intervalMinutes: 30");

    ScheduleHandle handle = schedules.getHandle("etcd-runbooks-backup-sandbox");
    handle.pause("held by the on-call");
    InventoryLoader.write(
        new Inventory(
            inventory.releases(),
            Map.of("sandbox", withInterval(everyMinute, 30), "other", otherOf(inventoryFile))),
        inventoryFile);
    Files.setLastModifiedTime(inventoryFile, FileTime.from(Instant.now().plusSeconds(2)));
    Answer applied = post("/api/v1/clusters/sandbox/backup-schedule", "{\"intervalMinutes\":30}");
    assertThat(applied.status()).as(applied.text()).isEqualTo(200);
    assertThat(applied.body().path("applied").asText()).isEqualTo("updated");
    assertThat(applied.body().path("paused").asBoolean()).isTrue();
    ScheduleDescription d = handle.describe();
    assertThat(d.getSchedule().getSpec().getIntervals())
        .extracting(i -> i.getEvery())
        .containsExactly(Duration.ofMinutes(30));
    assertThat(d.getSchedule().getState().getNote()).isEqualTo("held by the on-call");
  }

  /**
   * Two rounds of the Temporal Schedule a minute apart (backfilled, so started at once, each with
   * its slot), compacting history older than a minute: the first finds no revision that old and
   * compacts nothing; the second compacts to the revision the first noted (handed over by the
   * schedule), so the writes made between them stay readable at their revisions and older ones do
   * not.
   */
  @Test
  @Order(4)
  void aMaintenanceScheduleCompactsOnlyHistoryOlderThanAskedRoundByRound() throws Exception {
    try (ClusterProbe probe = new ClusterProbe(sandbox.cluster())) {
      probe.putMany("/registry/pods/p-", 50);
      long noted = probe.revision();
      Answer made =
          post(
              "/api/v1/clusters/sandbox/maintenance-schedule",
              "{\"intervalMinutes\":1,\"compactOlderThanMinutes\":1,\"forceCompaction\":true}");
      assertThat(made.status()).as(made.text()).isEqualTo(201);
      ScheduleHandle maintenance = schedules.getHandle("etcd-runbooks-maintenance-sandbox");
      // only the backfilled slots run
      maintenance.pause("the test backfills its rounds");
      assertThat(((ScheduleActionStartWorkflow) maintenance.describe().getSchedule().getAction()))
          .satisfies(a -> assertThat(a.getWorkflowType()).isEqualTo("MaintenanceSchedule"));

      Instant end = Instant.now().truncatedTo(ChronoUnit.MINUTES);
      Instant first = end.minus(Duration.ofMinutes(2));
      MaintenanceScheduleResult one = round(maintenance, first);
      probe.putMany("/registry/pods/p-", 50); // newer than the first round's revision
      MaintenanceScheduleResult two = round(maintenance, first.plus(Duration.ofMinutes(1)));

      assertThat(one.failures()).isEmpty();
      assertThat(one.rounds()).singleElement().asString().contains("compacted to (nothing)");
      assertThat(two.failures()).isEmpty();
      assertThat(two.rounds())
          .singleElement()
          .asString()
          .startsWith(first.plus(Duration.ofMinutes(1)).toString())
          .contains("compacted to " + noted + ",");
      assertThat(probe.dump(noted)).hasSize(50);
      assertThatThrownBy(() -> probe.dump(noted - 1)).hasMessageContaining("compacted");
    }
  }

  @Test
  @Order(5)
  void aSecondStartChangesNothingAndAClusterGoneFromTheInventoryLosesItsSchedules()
      throws Exception {
    // back to the inventory of the first start
    InventoryLoader.write(
        new Inventory(
            inventory.releases(), Map.of("sandbox", everyMinute, "other", otherOf(inventoryFile))),
        inventoryFile);
    Files.setLastModifiedTime(inventoryFile, FileTime.from(Instant.now().plusSeconds(4)));
    RunbookSchedules keeper = worker.getBean(RunbookSchedules.class);
    assertThat(keeper.reconcile().updated()).containsExactly("etcd-runbooks-backup-sandbox");

    // a second worker start changes nothing, and leaves a paused schedule paused
    schedules.getHandle("etcd-runbooks-drill-other").pause("held by the on-call");
    RunbookSchedules.Outcome again = keeper.reconcile();
    assertThat(again.created()).isEmpty();
    assertThat(again.updated()).isEmpty();
    assertThat(again.deleted()).isEmpty();
    assertThat(again.unchanged()).containsExactlyInAnyOrderElementsOf(EXPECTED.keySet());
    assertThat(schedules.getHandle("etcd-runbooks-drill-other").describe().getSchedule().getState())
        .satisfies(s -> assertThat(s.isPaused()).isTrue())
        .satisfies(s -> assertThat(s.getNote()).isEqualTo("held by the on-call"));
    // the worker's metrics show it paused, and when the others next start a run
    String paused =
        "etcd_runbooks_schedule_paused{etcd_cluster=\"other\",runbook=\"RestoreDrill\","
            + "schedule=\"etcd-runbooks-drill-other\"} 1.0";
    String metrics = awaitScrape(paused);
    assertThat(metrics)
        .contains(
            "etcd_runbooks_schedule_paused{etcd_cluster=\"sandbox\",runbook=\"RestoreDrill\","
                + "schedule=\"etcd-runbooks-drill-sandbox\"} 0.0")
        .doesNotContain(
            "etcd_runbooks_schedule_next_action_timestamp_seconds{etcd_cluster=\"other\","
                + "runbook=\"RestoreDrill\"");
    double next =
        metrics
            .lines()
            .filter(
                l ->
                    l.startsWith("etcd_runbooks_schedule_next_action_timestamp_seconds{")
                        && l.contains("schedule=\"etcd-runbooks-drill-sandbox\""))
            .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no next action of the drill schedule"));
    assertThat(next)
        .isBetween(
            (double) Instant.now().getEpochSecond(),
            Instant.now().plus(Duration.ofDays(7)).getEpochSecond() + 60.0);

    // "other" leaves the inventory: its schedules go, one we did not make stays, and so does the
    // API's maintenance schedule of a cluster still there
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
    Files.setLastModifiedTime(inventoryFile, FileTime.from(Instant.now().plusSeconds(6)));
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
    assertThat(schedules.getHandle("etcd-runbooks-maintenance-sandbox").describe()).isNotNull();
    assertThat(keeper.reconcile().unchanged())
        .containsExactlyInAnyOrder("etcd-runbooks-backup-sandbox", "etcd-runbooks-drill-sandbox");
  }

  /** The worker's /metrics once it shows {@code line} (read in the background every 10 s). */
  private String awaitScrape(String line) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      String metrics =
          http.send(
                  HttpRequest.newBuilder(URI.create(api + "/metrics")).GET().build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      if (metrics.contains(line)) return metrics;
      assertThat(System.nanoTime()).as("%s in the worker's metrics", line).isLessThan(deadline);
      Thread.sleep(300);
    }
  }

  /** Backfills the one slot {@code at} and waits for its round's result. */
  private MaintenanceScheduleResult round(ScheduleHandle schedule, Instant at) throws Exception {
    schedule.backfill(
        List.of(
            new ScheduleBackfill(
                at, at.plusSeconds(1), ScheduleOverlapPolicy.SCHEDULE_OVERLAP_POLICY_BUFFER_ALL)));
    ScheduleActionResult started =
        awaitActions(schedule, at, 1).stream()
            .filter(a -> a.getScheduledAt().equals(at))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no round started for " + at));
    return result(started, MaintenanceScheduleResult.class);
  }

  private <T> T result(ScheduleActionResult action, Class<T> type) throws Exception {
    String workflowId = ((ScheduleActionExecutionStartWorkflow) action.getAction()).getWorkflowId();
    return client.newUntypedWorkflowStub(workflowId).getResult(90, TimeUnit.SECONDS, type);
  }

  private long backupFiles() throws IOException {
    try (var files = Files.list(Path.of(everyMinute.backupDir()))) {
      return files.filter(f -> f.toString().endsWith(".json")).count();
    }
  }

  private static ClusterSpec withInterval(ClusterSpec c, int minutes) {
    BackupSpec b = c.backup();
    return new ClusterSpec(
        c.name(),
        c.members(),
        c.service(),
        c.ssh(),
        c.tls(),
        c.backupDir(),
        c.controlPlane(),
        new BackupSpec(b.encrypt(), b.keyFile(), b.keyId(), null, null, minutes, null));
  }

  private static ClusterSpec otherOf(Path inventoryFile) {
    return new io.etcdrunbooks.inventory.InventorySource(inventoryFile).get().cluster("other");
  }

  record Answer(int status, JsonNode body, String text) {}

  private Answer post(String path, String body) throws Exception {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(URI.create(api + path))
                .header("Content-Type", "application/json")
                .header("Authorization", OPERATOR.bearer())
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    String text = response.body();
    return new Answer(
        response.statusCode(), text.isBlank() ? JSON.nullNode() : JSON.readTree(text), text);
  }

  /**
   * The schedule's actions scheduled at {@code from} or later, oldest first, once there are {@code
   * count}.
   */
  private static List<ScheduleActionResult> awaitActions(
      ScheduleHandle handle, Instant from, int count) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      Map<Instant, ScheduleActionResult> byTime = new HashMap<>();
      handle.describe().getInfo().getRecentActions().stream()
          .filter(a -> !a.getScheduledAt().isBefore(from))
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
