package io.etcdrunbooks.workflows.rollback;

import static io.etcdrunbooks.workflows.testing.RunbookWaits.awaitPhase;
import static io.etcdrunbooks.workflows.testing.RunbookWaits.workflowFailure;
import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.RunbookIds;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.downgrade.DowngradeClusterWorkflowImpl;
import io.etcdrunbooks.workflows.restore.FakeRestoreHosts;
import io.etcdrunbooks.workflows.restore.RestoreClusterWorkflowImpl;
import io.etcdrunbooks.workflows.testing.FakeCluster;
import io.etcdrunbooks.workflows.testing.FakeDowngrade;
import io.etcdrunbooks.workflows.testing.RecordingActivities;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A rollback of an upgrade to 3.6 whose cluster version has moved: etcd's online downgrade (the
 * DowngradeCluster runbook as a child) instead of restoring the pre-upgrade backup, so nothing is
 * lost and no acknowledgeDataLoss is asked for; a 3.5 cluster version still goes by restore.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class RollbackByDowngradeTest {

  private static final String QUEUE = "rollback-by-downgrade";
  private static final List<String> MEMBERS = List.of("m1", "m2", "m3");
  private static final List<String> AVAILABLE = List.of("3.5.35", "3.6.16");

  private final TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance();
  private final FakeRestoreHosts hosts = new FakeRestoreHosts(MEMBERS, List.of("cp1", "cp2"));
  private RecordingActivities recording;

  @AfterEach
  void close() {
    env.close();
  }

  @Test
  void givenAnUpgradeTo36WhoseClusterVersionMovedItDowngradesOnlineWithoutAskingForDataLoss() {
    FakeCluster cluster = new FakeCluster("c", MEMBERS, "3.6.16", "m1", AVAILABLE);
    FakeDowngrade downgrade = new FakeDowngrade(cluster);

    RollbackResult result = stub(cluster, downgrade).rollback(request(options()));

    assertThat(result.membersToRollBack()).containsExactly("m2", "m3", "m1");
    assertThat(result.memberVersions())
        .isEqualTo(Map.of("m1", "3.5.35", "m2", "3.5.35", "m3", "3.5.35"));
    assertThat(result.clusterVersion()).isEqualTo("3.5.0");
    assertThat(result.restoredBackupId()).isEmpty();
    assertThat(result.lostRevisions()).isEmpty();
    assertThat(downgrade.enables()).isEqualTo(1);
    assertThat(hosts.restored()).isEmpty();
    assertThat(recording.calls())
        .contains("DowngradeActivities.enable")
        .doesNotContain("RestoreActivities.restoreMember", "ApiServerActivities.stopApiServer");
  }

  @Test
  void givenADryRunItRunsTheDowngradesDryRunAndSaysSoInItsPlan() {
    FakeCluster cluster = new FakeCluster("c", MEMBERS, "3.6.16", "m1", AVAILABLE);
    FakeDowngrade downgrade = new FakeDowngrade(cluster);
    RollbackClusterWorkflow rollback = stub(cluster, downgrade);

    RollbackResult result = rollback.rollback(request(options().asDryRun()));

    assertThat(result.dryRun()).isTrue();
    assertThat(result.membersToRollBack()).containsExactly("m2", "m3", "m1");
    assertThat(downgrade.enables()).isZero();
    assertThat(cluster.running()).containsEntry("m1", "3.6.16");
    assertThat(rollback.progress().completed())
        .anySatisfy(s -> assertThat(s.name()).isEqualTo("online downgrade to 3.5.35"));
  }

  @Test
  void givenRequireApprovalItsPlanNamesTheOnlineDowngradeBeforeAnythingIsTouched() {
    FakeCluster cluster = new FakeCluster("c", MEMBERS, "3.6.16", "m1", AVAILABLE);
    FakeDowngrade downgrade = new FakeDowngrade(cluster);
    RollbackClusterWorkflow rollback = stub(cluster, downgrade);
    WorkflowClient.start(rollback::rollback, request(options().withApproval()));
    awaitPhase(env, rollback, Phase.AWAITING_APPROVAL);

    assertThat(rollback.progress().message())
        .contains(
            "waiting for approval before etcd's online downgrade to 3.5.35",
            "DowngradeCluster runbook change-c-downgrade",
            "no restore, no write lost");
    assertThat(downgrade.enables()).isZero();

    rollback.approve("on-call");

    assertThat(WorkflowStub.fromTyped(rollback).getResult(RollbackResult.class).clusterVersion())
        .isEqualTo("3.5.0");
  }

  @Test
  void givenAClusterVersionOf35TheRollbackStillAsksForDataLossAndARestore() {
    FakeCluster cluster =
        new FakeCluster("c", MEMBERS, "3.5.35", "m1", List.of("3.4.23", "3.5.35"));

    Throwable failure =
        workflowFailure(
            () ->
                stub(cluster, new FakeDowngrade(cluster))
                    .rollback(
                        RollbackRequest.to(
                            "c",
                            "3.4.23",
                            RunbookOptions.defaults().withMemberTimeoutSeconds(60))));

    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.RollbackRefused.name());
    assertThat(Failures.rootMessage(failure)).contains("acknowledgeDataLoss: true");
  }

  private static RunbookOptions options() {
    return RunbookOptions.defaults().withMemberTimeoutSeconds(60);
  }

  private static RollbackRequest request(RunbookOptions options) {
    return RollbackRequest.to("c", "3.5.35", options);
  }

  private RollbackClusterWorkflow stub(FakeCluster cluster, FakeDowngrade downgrade) {
    Worker worker = env.newWorker(QUEUE);
    worker.registerWorkflowImplementationTypes(
        RollbackClusterWorkflowImpl.class,
        RestoreClusterWorkflowImpl.class,
        DowngradeClusterWorkflowImpl.class);
    recording = new RecordingActivities(downgrade, hosts, cluster);
    recording.registerOn(worker);
    env.start();
    return env.getWorkflowClient()
        .newWorkflowStub(
            RollbackClusterWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(RunbookIds.changing("c"))
                .setTaskQueue(QUEUE)
                .build());
  }
}
