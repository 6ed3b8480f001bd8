package io.etcdrunbooks.workflows.backup;

import static io.etcdrunbooks.workflows.testing.RunbookWaits.awaitPhase;
import static io.etcdrunbooks.workflows.testing.RunbookWaits.workflowFailure;
import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.workflows.common.CompletedStep;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.model.BackupRecord;
import io.etcdrunbooks.workflows.testing.HistoryExport;
import io.etcdrunbooks.workflows.testing.PhaseLog;
import io.etcdrunbooks.workflows.testing.RecordingActivities;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.failure.CanceledFailure;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every way a BackupCluster runbook ends, on a backup directory in memory ({@link FakeBackups}),
 * each in well under a second. The worker module's BackupClusterTest takes real backups of real
 * etcd.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class BackupClusterControlFlowTest {

  private static final String QUEUE = "backup-control-flow";

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
    HistoryExport.ifAsked(
        env, BackupClusterWorkflow.workflowId("c"), "backup-in-memory-" + testName);
    env.close();
  }

  @Test
  void givenNoOffsiteHostItKeepsAVerifiedBackupAppliesRetentionAndSaysWhatItKeptAndDeleted() {
    FakeBackups backups = new FakeBackups(1);
    backups.takeVerifiedBackup(
        new io.etcdrunbooks.workflows.activities.BackupActivities.BackupRequest("c", "backup-old"));
    BackupClusterWorkflow workflow = stub(backups);

    BackupRecord kept =
        workflow.backup(BackupClusterRequest.of("c", "nightly", RunbookOptions.defaults()));

    assertThat(kept.id()).startsWith("backup-");
    assertThat(backups.kept()).containsExactly(kept.id());
    assertThat(workflow.progress().phase()).isEqualTo(Phase.DONE);
    assertThat(workflow.progress().step()).isEqualTo(kept.id());
    assertThat(workflow.progress().completed())
        .extracting(CompletedStep::name)
        .containsExactly("verified backup " + kept.id(), "off-site copy", "retention");
    assertThat(workflow.progress().message())
        .isEqualTo(
            "backup "
                + kept.id()
                + " kept (no off-site host in the inventory);"
                + " retention kept 1, deleted [backup-old]");
    assertThat(recording.calls())
        .containsExactly(
            "BackupActivities.takeVerifiedBackup",
            "BackupActivities.copyOffsite",
            "BackupActivities.applyRetention");
    assertThat(phases.left(BackupClusterWorkflow.TYPE))
        .containsExactly("STARTING", "BACKUP", "RETENTION");
  }

  @Test
  void givenAnOffsiteHostTheBackupIsCopiedThereAndTheMessageSaysWhere() {
    FakeBackups backups = new FakeBackups(7).offsite("vault:/srv/etcd-backups");
    BackupClusterWorkflow workflow = stub(backups);

    BackupRecord kept =
        workflow.backup(BackupClusterRequest.of("c", "", RunbookOptions.defaults()));

    assertThat(backups.copied()).containsExactly(kept.id());
    assertThat(workflow.progress().message())
        .contains("kept and copied to vault:/srv/etcd-backups/" + kept.id() + ".db.enc");
  }

  @Test
  void givenRequireApprovalItWaitsThenTakesTheBackupOnceApproved() {
    FakeBackups backups = new FakeBackups(7);
    BackupClusterWorkflow workflow = stub(backups);
    WorkflowClient.start(
        workflow::backup,
        BackupClusterRequest.of(
            "c", "before maintenance", RunbookOptions.defaults().withApproval()));
    awaitPhase(env, workflow, Phase.AWAITING_APPROVAL);
    assertThat(recording.calls()).isEmpty();

    workflow.approve("on-call");

    BackupRecord kept = WorkflowStub.fromTyped(workflow).getResult(BackupRecord.class);
    assertThat(backups.kept()).containsExactly(kept.id());
    assertThat(phases.left(BackupClusterWorkflow.TYPE))
        .containsExactly("STARTING", "AWAITING_APPROVAL", "BACKUP", "RETENTION");
  }

  @Test
  void givenACancelWhileAwaitingApprovalItStopsHavingTakenNothing() {
    FakeBackups backups = new FakeBackups(7);
    BackupClusterWorkflow workflow = stub(backups);
    WorkflowClient.start(
        workflow::backup,
        BackupClusterRequest.of("c", "", RunbookOptions.defaults().withApproval()));
    awaitPhase(env, workflow, Phase.AWAITING_APPROVAL);

    WorkflowStub.fromTyped(workflow).cancel();

    Throwable failure =
        workflowFailure(() -> WorkflowStub.fromTyped(workflow).getResult(BackupRecord.class));
    assertThat(failure).hasRootCauseInstanceOf(CanceledFailure.class);
    assertThat(recording.calls()).isEmpty();
  }

  @ParameterizedTest
  @EnumSource(
      value = FailureType.class,
      names = {"BackupKeyUnusable", "BackupVerificationFailed", "BackupCorrupt", "UnknownCluster"})
  void givenTheBackupFails_itEndsWithTheBackupsFailureType_andAppliesNoRetention(FailureType type) {
    FakeBackups backups = new FakeBackups(7).failing(type, 1);
    BackupClusterWorkflow workflow = stub(backups);

    Throwable failure =
        workflowFailure(
            () -> workflow.backup(BackupClusterRequest.of("c", "", RunbookOptions.defaults())));

    assertThat(Failures.rootType(failure)).isEqualTo(type.name());
    assertThat(workflow.progress().phase()).isEqualTo(Phase.FAILED);
    assertThat(backups.kept()).isEmpty();
    assertThat(recording.calls()).containsExactly("BackupActivities.takeVerifiedBackup");
  }

  private BackupClusterWorkflow stub(FakeBackups backups) {
    Worker worker = env.newWorker(QUEUE);
    worker.registerWorkflowImplementationTypes(BackupClusterWorkflowImpl.class);
    recording = new RecordingActivities(backups);
    recording.registerOn(worker);
    env.start();
    return env.getWorkflowClient()
        .newWorkflowStub(
            BackupClusterWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(BackupClusterWorkflow.workflowId("c"))
                .setTaskQueue(QUEUE)
                .build());
  }
}
