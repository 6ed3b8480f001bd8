package io.etcdrunbooks.workflows.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.within;

import io.etcdrunbooks.workflows.common.CompletedStep;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.testing.HistoryExport;
import io.etcdrunbooks.workflows.testing.PhaseLog;
import io.etcdrunbooks.workflows.testing.RecordingActivities;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionAlreadyStarted;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.failure.CanceledFailure;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

/**
 * The backup schedule on workflow time that the test environment skips, with its BackupCluster
 * children on a backup directory in memory ({@link FakeBackups}). The worker module's
 * BackupScheduleTest takes real backups.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class BackupScheduleControlFlowTest {

  private static final String QUEUE = "backup-schedule-control-flow";
  private static final String ID = BackupScheduleWorkflow.workflowId("c");

  private final PhaseLog phases = new PhaseLog();
  private final TestWorkflowEnvironment env = phases.environment();
  private RecordingActivities recording;
  private String testName;

  @BeforeEach
  void name(TestInfo info) {
    testName = info.getTestMethod().orElseThrow().getName();
  }

  @AfterEach
  void close() {
    HistoryExport.ifAsked(env, ID, "backup-schedule-in-memory-" + testName);
    env.close();
  }

  @Test
  void givenMaxBackupsItTakesThatManyAnIntervalApartAndEnds() {
    FakeBackups backups = new FakeBackups(7);
    BackupScheduleWorkflow schedule = stub(backups);

    BackupScheduleResult result = schedule.run(new BackupScheduleRequest("c", 60, 0, 3));

    assertThat(result.backupIds()).hasSize(3).doesNotHaveDuplicates();
    assertThat(result.failures()).isEmpty();
    assertThat(backups.kept()).containsExactlyElementsOf(result.backupIds());
    assertThat(startTimes(schedule))
        .satisfies(
            t -> {
              assertThat(t.get(1) - t.get(0)).isBetween(3_600_000L, 3_660_000L);
              assertThat(t.get(2) - t.get(0)).isBetween(7_200_000L, 7_260_000L);
            });
    assertThat(schedule.progress().phase()).isEqualTo(Phase.DONE);
    assertThat(recording.calls()).doesNotContain("BackupActivities.scheduleIntervalMinutes");
    assertThat(phases.left(BackupScheduleWorkflow.TYPE))
        .containsExactly("STARTING", "WAITING", "BACKUP", "WAITING", "BACKUP", "WAITING", "BACKUP");
    // for the schedule-health alert: the third round's time
    Map<String, Double> next =
        awaitGauges("etcd_runbooks_schedule_next_run_timestamp_seconds", g -> !g.isEmpty());
    assertThat(next).isNotEmpty();
    assertThat(next.keySet()).allMatch(k -> k.contains("etcd_cluster=c"));
    assertThat(next.values()).allMatch(due -> due > 0);
  }

  private Map<String, Double> awaitGauges(String name, Predicate<Map<String, Double>> done) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (!done.test(phases.gauges(name)) && System.nanoTime() < deadline) {
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    return phases.gauges(name);
  }

  @Test
  void givenABackupFailsTheScheduleRecordsItAndGoesOn() {
    FakeBackups backups = new FakeBackups(7).failing(FailureType.BackupVerificationFailed, 1);
    BackupScheduleWorkflow schedule = stub(backups);

    BackupScheduleResult result = schedule.run(new BackupScheduleRequest("c", 60, 0, 2));

    assertThat(result.failures())
        .singleElement()
        .asString()
        .contains("failed (BackupVerificationFailed)");
    assertThat(result.backupIds()).hasSize(1);
  }

  @Test
  void givenNoIntervalInTheRequestItReadsTheInventorysBeforeEachWait() {
    FakeBackups backups = new FakeBackups(7).intervalMinutes(30);
    BackupScheduleWorkflow schedule = stub(backups);

    schedule.run(new BackupScheduleRequest("c", 0, 0, 2));

    assertThat(
            recording.calls().stream().filter("BackupActivities.scheduleIntervalMinutes"::equals))
        .hasSize(2);
    List<Long> t = startTimes(schedule);
    assertThat(t.get(1) - t.get(0)).isBetween(1_800_000L, 1_860_000L);
  }

  @Test
  void afterFiftyBackupsItContinuesAsNewCarryingTheNextTimeAndTheBackupsStillToTake() {
    FakeBackups backups = new FakeBackups(100);
    BackupScheduleWorkflow schedule = stub(backups);

    BackupScheduleResult result = schedule.run(new BackupScheduleRequest("c", 60, 0, 52));

    assertThat(backups.kept()).hasSize(52).doesNotHaveDuplicates();
    assertThat(result.backupIds())
        .as("the second run's")
        .containsExactlyElementsOf(backups.kept().subList(50, 52));
    List<Long> t = startTimes(schedule);
    assertThat(t.get(1) - t.get(0))
        .as("the new run keeps the slots of the old one")
        .isCloseTo(3_600_000L, within(60_000L));
  }

  @Test
  void givenACancelWhileWaitingItStops() {
    FakeBackups backups = new FakeBackups(7);
    BackupScheduleWorkflow schedule = stub(backups);
    WorkflowClient.start(schedule::run, new BackupScheduleRequest("c", 60, 0, 0));
    for (int i = 0; i < 200 && backups.kept().isEmpty(); i++) env.sleep(Duration.ofMillis(50));
    assertThat(backups.kept()).hasSize(1);

    WorkflowStub.fromTyped(schedule).cancel();

    Throwable failure =
        catchThrowable(
            () -> WorkflowStub.fromTyped(schedule).getResult(BackupScheduleResult.class));
    assertThat(failure)
        .isInstanceOf(WorkflowFailedException.class)
        .hasRootCauseInstanceOf(CanceledFailure.class);
  }

  /**
   * A Temporal Schedule's round (one backup): its BackupCluster takes the id a manual backup takes
   * and carries the schedule's startedBy, which the API's refusal of a manual backup names.
   */
  @Test
  void givenOneRoundOfATemporalScheduleItsBackupCarriesWhoStartedIt() throws Exception {
    FakeBackups backups = new FakeBackups(7);
    BackupScheduleWorkflow schedule =
        stub(backups, Map.of("startedBy", "schedule etcd-runbooks-backup-c"));

    BackupScheduleResult result = schedule.run(BackupScheduleRequest.oneRound("c", 60));

    assertThat(result.backupIds()).hasSize(1);
    assertThat(
            env.getWorkflowClient()
                .newUntypedWorkflowStub(BackupClusterWorkflow.workflowId("c"))
                .describe()
                .getMemo("startedBy", String.class))
        .isEqualTo("schedule etcd-runbooks-backup-c");
    // the Temporal Schedule keeps the time: no next-round gauge left to read as overdue
    // (once Tally has reported the round's phases, which it does with its gauges)
    long reported = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (!phases.left(BackupScheduleWorkflow.TYPE).contains("BACKUP")
        && System.nanoTime() < reported) Thread.sleep(50);
    assertThat(phases.left(BackupScheduleWorkflow.TYPE)).contains("BACKUP");
    assertThat(phases.gauges("etcd_runbooks_schedule_next_run_timestamp_seconds")).isEmpty();
  }

  /**
   * A manual backup asked while a schedule's backup runs is refused by Temporal (the same id), and
   * the running one tells who started it: what the API's 409 names.
   */
  @Test
  void givenAScheduledBackupRunsAManualStartIsRefusedAndFindsTheSchedule() throws Exception {
    CountDownLatch taking = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    FakeBackups backups = new FakeBackups(7).holding(taking, release);
    BackupScheduleWorkflow schedule =
        stub(backups, Map.of("startedBy", "schedule etcd-runbooks-backup-c"));
    WorkflowClient.start(schedule::run, BackupScheduleRequest.oneRound("c", 60));
    assertThat(taking.await(20, TimeUnit.SECONDS)).as("the scheduled backup is taken").isTrue();

    Throwable refused =
        catchThrowable(
            () ->
                env.getWorkflowClient()
                    .newUntypedWorkflowStub(
                        BackupClusterWorkflow.TYPE,
                        WorkflowOptions.newBuilder()
                            .setWorkflowId(BackupClusterWorkflow.workflowId("c"))
                            .setTaskQueue(QUEUE)
                            .setWorkflowIdConflictPolicy(
                                WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_FAIL)
                            .build())
                    .start(
                        BackupClusterRequest.of("c", "api: on-call", RunbookOptions.defaults())));
    Object startedBy =
        env.getWorkflowClient()
            .newUntypedWorkflowStub(BackupClusterWorkflow.workflowId("c"))
            .describe()
            .getMemo("startedBy", String.class);
    release.countDown();

    assertThat(refused).isInstanceOf(WorkflowExecutionAlreadyStarted.class);
    assertThat(startedBy).isEqualTo("schedule etcd-runbooks-backup-c");
    assertThat(WorkflowStub.fromTyped(schedule).getResult(BackupScheduleResult.class).backupIds())
        .hasSize(1);
  }

  /** A slot due while another backup of the cluster runs takes none and names the running one. */
  @Test
  void givenABackupOfTheClusterAlreadyRunsTheRoundTakesNoneAndNamesIt() {
    FakeBackups backups = new FakeBackups(7);
    BackupScheduleWorkflow schedule = stub(backups);
    BackupClusterWorkflow manual =
        env.getWorkflowClient()
            .newWorkflowStub(
                BackupClusterWorkflow.class,
                WorkflowOptions.newBuilder()
                    .setWorkflowId(BackupClusterWorkflow.workflowId("c"))
                    .setTaskQueue(QUEUE)
                    .build());
    String runId =
        WorkflowClient.start(
                manual::backup,
                BackupClusterRequest.of(
                    "c", "before a drain", RunbookOptions.defaults().withApproval()))
            .getRunId();

    BackupScheduleResult result = schedule.run(BackupScheduleRequest.oneRound("c", 60));

    assertThat(result.backupIds()).isEmpty();
    assertThat(result.failures())
        .singleElement()
        .asString()
        .contains(
            "skipped: a backup of c already runs as workflow backup-c;",
            "GET /api/v1/runbooks/backup-c");
    assertThat(
            env.getWorkflowClient()
                .newUntypedWorkflowStub(BackupClusterWorkflow.workflowId("c"))
                .describe()
                .getExecution()
                .getRunId())
        .as("the manual backup still runs as it was")
        .isEqualTo(runId);
    assertThat(backups.kept()).isEmpty();
  }

  private List<Long> startTimes(BackupScheduleWorkflow schedule) {
    return schedule.progress().completed().stream()
        .filter(s -> s.name().startsWith("scheduled backup "))
        .map(CompletedStep::startedAtMillis)
        .toList();
  }

  private BackupScheduleWorkflow stub(FakeBackups backups) {
    return stub(backups, Map.of());
  }

  private BackupScheduleWorkflow stub(FakeBackups backups, Map<String, Object> memo) {
    Worker worker = env.newWorker(QUEUE);
    worker.registerWorkflowImplementationTypes(
        BackupScheduleWorkflowImpl.class, BackupClusterWorkflowImpl.class);
    recording = new RecordingActivities(backups);
    recording.registerOn(worker);
    env.start();
    return env.getWorkflowClient()
        .newWorkflowStub(
            BackupScheduleWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(ID)
                .setTaskQueue(QUEUE)
                .setMemo(memo)
                .build());
  }
}
