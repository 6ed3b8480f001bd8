package io.etcdrunbooks.workflows.drill;

import static io.etcdrunbooks.workflows.testing.RunbookWaits.workflowFailure;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.etcdrunbooks.workflows.activities.DrillActivities;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.model.BackupRecord;
import io.etcdrunbooks.workflows.model.KeyspaceHash;
import io.etcdrunbooks.workflows.testing.PhaseLog;
import io.etcdrunbooks.workflows.testing.RecordingActivities;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.failure.CanceledFailure;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * How a RestoreDrill run ends, on drill activities in memory: the scratch is cleaned up and the
 * outcome recorded whether the drill passes, differs, fails or is cancelled. The worker module's
 * BackupClusterTest drills real backups on a real throwaway etcd.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class RestoreDrillControlFlowTest {

  private static final String QUEUE = "restore-drill-control-flow";
  private static final KeyspaceHash RECORDED = new KeyspaceHash(120, 40, 3_000_000_000L);

  private final PhaseLog phases = new PhaseLog();
  private final TestWorkflowEnvironment env = phases.environment();
  private final FakeDrill fake = new FakeDrill();
  private RecordingActivities recording;

  @AfterEach
  void close() {
    fake.release.countDown();
    env.close();
  }

  @Test
  void aCopyThatServesWhatTheBackupRecordedPassesAndIsCleanedUpAndRecorded() {
    fake.measured = new DrillActivities.DrillMeasurement(120, 300, RECORDED, "etcdutl 3.5.30");

    RestoreDrillResult result =
        stub().drill(RestoreDrillRequest.newest("c").withBackupId("backup-1"));

    assertThat(result.passed()).isTrue();
    assertThat(result.backupId()).isEqualTo("backup-1");
    assertThat(result.target()).isEqualTo("object_store");
    assertThat(result.differences()).isEmpty();
    assertThat(recording.calls())
        .containsExactly(
            "DrillActivities.checkBackup",
            "DrillActivities.restoreAndMeasure",
            "DrillActivities.cleanUp",
            "DrillActivities.recordResult");
    assertThat(fake.outcomes)
        .singleElement()
        .satisfies(o -> assertThat(o.passed()).isTrue())
        .satisfies(o -> assertThat(o.backupId()).isEqualTo("backup-1"));
    assertThat(phases.left(RestoreDrillWorkflow.TYPE))
        .containsExactly("STARTING", "PREFLIGHT", "DRILL", "POSTFLIGHT");
  }

  @Test
  void aCopyWhoseHashDiffersFailsNamingTheBackupTheTargetAndTheHashAndIsRecordedOnce() {
    fake.measured =
        new DrillActivities.DrillMeasurement(
            120, 300, new KeyspaceHash(120, 40, 12345), "etcdutl 3.5.30");
    RestoreDrillWorkflow workflow = stub();

    Throwable failure =
        workflowFailure(
            () -> workflow.drill(RestoreDrillRequest.newest("c").withBackupId("backup-1")));

    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.RestoreDrillFailed.name());
    assertThat(Failures.rootMessage(failure))
        .contains("backup backup-1", "cluster 'c'", "target object_store", "3000000000", "12345");
    assertThat(fake.outcomes).singleElement().satisfies(o -> assertThat(o.passed()).isFalse());
    assertThat(recording.calls()).contains("DrillActivities.cleanUp");
    assertThat(workflow.progress().phase()).isEqualTo(Phase.FAILED);
  }

  @Test
  void aRestoreThatFailsIsCleanedUpAndRecordedAsAFailedDrill() {
    fake.restoreFails = true;
    RestoreDrillWorkflow workflow = stub();

    Throwable failure =
        workflowFailure(
            () -> workflow.drill(RestoreDrillRequest.newest("c").withBackupId("backup-1")));

    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.RestoreDrillFailed.name());
    assertThat(recording.calls())
        .containsExactly(
            "DrillActivities.checkBackup",
            "DrillActivities.restoreAndMeasure",
            "DrillActivities.cleanUp",
            "DrillActivities.recordResult");
    assertThat(fake.cleanedUp).containsExactly(fake.checkedDrillId);
    assertThat(fake.outcomes).singleElement().satisfies(o -> assertThat(o.passed()).isFalse());
  }

  @Test
  void aDrillCancelledWhileItRestoresStillCleansUp() throws Exception {
    fake.blockRestore = true;
    RestoreDrillWorkflow workflow = stub();
    WorkflowClient.start(workflow::drill, RestoreDrillRequest.newest("c").withBackupId("backup-1"));
    assertThat(fake.restoring.await(20, TimeUnit.SECONDS)).isTrue();

    WorkflowStub.fromTyped(workflow).cancel();

    Throwable failure =
        workflowFailure(() -> WorkflowStub.fromTyped(workflow).getResult(RestoreDrillResult.class));
    assertThat(failure).hasRootCauseInstanceOf(CanceledFailure.class);
    assertThat(fake.cleanedUp).containsExactly(fake.checkedDrillId);
    assertThat(fake.outcomes).isEmpty();
  }

  @Test
  void withoutABackupIdEachTargetsNewestCopyIsDrilledFromThatTargetAndAllPassing() {
    fake.measured = new DrillActivities.DrillMeasurement(120, 300, RECORDED, "etcdutl 3.5.30");

    RestoreDrillResult result = stub().drill(RestoreDrillRequest.newest("c"));

    assertThat(result.passed()).isTrue();
    assertThat(result.targets())
        .extracting(RestoreDrillResult.Target::target, RestoreDrillResult.Target::passed)
        .containsExactly(tuple("local", true), tuple("offsite", true));
    assertThat(fake.checked)
        .extracting(DrillActivities.DrillRequest::target, DrillActivities.DrillRequest::backupId)
        .containsExactly(tuple("local", "backup-2"), tuple("offsite", "backup-1"));
    assertThat(fake.cleanedUp).containsExactly(fake.checkedDrillId, fake.checkedDrillId);
    assertThat(fake.outcomes)
        .singleElement()
        .satisfies(o -> assertThat(o.passed()).isTrue())
        .satisfies(o -> assertThat(o.target()).isEqualTo("local,offsite"));
  }

  @Test
  void withoutABackupIdACorruptCopyOnOneTargetFailsTheRunNamingThatTargetAfterTheOthersPassed() {
    fake.measured = new DrillActivities.DrillMeasurement(120, 300, RECORDED, "etcdutl 3.5.30");
    fake.corruptOn = "offsite";
    RestoreDrillWorkflow workflow = stub();

    Throwable failure = workflowFailure(() -> workflow.drill(RestoreDrillRequest.newest("c")));

    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.RestoreDrillFailed.name());
    assertThat(Failures.rootMessage(failure))
        .contains(
            "target offsite (backup backup-1): backup backup-1 on offsite has SHA-256 00ff",
            "passed on local (backup backup-2)")
        .doesNotContain("target local");
    assertThat(recording.calls())
        .containsExactly(
            "DrillActivities.newestPerTarget",
            "DrillActivities.checkBackup",
            "DrillActivities.checkBackup",
            "DrillActivities.restoreAndMeasure",
            "DrillActivities.cleanUp",
            "DrillActivities.cleanUp",
            "DrillActivities.recordResult");
    assertThat(fake.outcomes)
        .singleElement()
        .satisfies(o -> assertThat(o.passed()).isFalse())
        .satisfies(o -> assertThat(o.target()).isEqualTo("offsite"))
        .satisfies(o -> assertThat(o.backupId()).isEqualTo("backup-1"));
  }

  @Test
  void withoutABackupIdADrillCancelledWhileItRestoresCleansUpEveryTargetAndRecordsNothing()
      throws Exception {
    fake.blockRestore = true;
    RestoreDrillWorkflow workflow = stub();
    WorkflowClient.start(workflow::drill, RestoreDrillRequest.newest("c"));
    assertThat(fake.restoring.await(20, TimeUnit.SECONDS)).isTrue();

    WorkflowStub.fromTyped(workflow).cancel();

    Throwable failure =
        workflowFailure(() -> WorkflowStub.fromTyped(workflow).getResult(RestoreDrillResult.class));
    assertThat(failure).hasRootCauseInstanceOf(CanceledFailure.class);
    assertThat(fake.cleanedUpTargets).containsExactly("local", "offsite");
    assertThat(fake.outcomes).isEmpty();
  }

  private RestoreDrillWorkflow stub() {
    Worker worker = env.newWorker(QUEUE);
    worker.registerWorkflowImplementationTypes(RestoreDrillWorkflowImpl.class);
    recording = new RecordingActivities(fake);
    recording.registerOn(worker);
    env.start();
    return env.getWorkflowClient()
        .newWorkflowStub(
            RestoreDrillWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(RestoreDrillWorkflow.workflowId("c"))
                .setTaskQueue(QUEUE)
                .setWorkflowExecutionTimeout(Duration.ofMinutes(1))
                .build());
  }

  /**
   * One backup, found in the object store; per target, backup-2 on the worker and backup-1
   * off-site. The restore measures what the test sets.
   */
  static final class FakeDrill implements DrillActivities {
    final List<String> cleanedUp = new CopyOnWriteArrayList<>();
    final List<DrillRequest> checked = new CopyOnWriteArrayList<>();
    final List<String> cleanedUpTargets = new CopyOnWriteArrayList<>();
    volatile String corruptOn = "";
    final List<DrillOutcome> outcomes = new CopyOnWriteArrayList<>();
    final CountDownLatch restoring = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    volatile DrillMeasurement measured;
    volatile boolean restoreFails;
    volatile boolean blockRestore;
    volatile String checkedDrillId;

    @Override
    public List<TargetBackup> newestPerTarget(DrillRequest request) {
      return List.of(
          new TargetBackup("local", "backup-2", ""), new TargetBackup("offsite", "backup-1", ""));
    }

    @Override
    public DrillBackup checkBackup(DrillRequest request) {
      checkedDrillId = request.drillId();
      checked.add(request);
      if (request.fromOneTarget() && request.target().equals(corruptOn))
        throw FailureType.BackupCorrupt.nonRetryable(
            "backup %s on %s has SHA-256 00ff, its record says 00"
                .formatted(request.backupId(), corruptOn));
      return new DrillBackup(
          BackupRecord.builder()
              .id(request.backupId().isBlank() ? "backup-1" : request.backupId())
              .cluster(request.cluster())
              .member("m1")
              .etcdVersion("3.5.30")
              .revision(120)
              .hash(7)
              .keyCount(900)
              .sizeBytes(4096)
              .sha256("00")
              .path("/backups/backup-1.db.enc")
              .takenAt("2026-11-27T02:00:00Z")
              .encrypted(true)
              .keyId("k1")
              .liveKeys(300)
              .keyspaceHash(RECORDED)
              .build(),
          request.fromOneTarget() ? request.target() : "object_store");
    }

    @Override
    public DrillMeasurement restoreAndMeasure(DrillRequest request) {
      restoring.countDown();
      if (blockRestore) {
        try {
          release.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      if (restoreFails)
        throw FailureType.RestoreDrillFailed.nonRetryable(
            "restore drill of backup backup-1: the throwaway etcd exited");
      return measured;
    }

    @Override
    public boolean cleanUp(DrillRequest request) {
      cleanedUp.add(request.drillId());
      if (request.fromOneTarget()) cleanedUpTargets.add(request.target());
      return true;
    }

    @Override
    public void recordResult(DrillOutcome outcome) {
      outcomes.add(outcome);
    }
  }
}
