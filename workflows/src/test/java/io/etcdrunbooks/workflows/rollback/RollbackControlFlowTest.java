package io.etcdrunbooks.workflows.rollback;

import static io.etcdrunbooks.workflows.testing.RunbookWaits.awaitPhase;
import static io.etcdrunbooks.workflows.testing.RunbookWaits.workflowFailure;
import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.workflows.activities.HostActivities.InstallRequest;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.RunbookIds;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.model.MemberRef;
import io.etcdrunbooks.workflows.restore.FakeRestoreHosts;
import io.etcdrunbooks.workflows.restore.RestoreClusterWorkflowImpl;
import io.etcdrunbooks.workflows.testing.FakeCluster;
import io.etcdrunbooks.workflows.testing.RecordingActivities;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.failure.CanceledFailure;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every way a rollback can end, on a cluster in memory (no etcd, no hosts): member by member, and
 * through a restore run as its child once the cluster version has moved. Each runs in about a
 * second; RollbackClusterTest in the worker module runs the same runbook against real etcd.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class RollbackControlFlowTest {

  private static final String QUEUE = "rollback-control-flow";
  private static final List<String> MEMBERS = List.of("m1", "m2", "m3");
  private static final List<String> AVAILABLE = List.of("3.4.23", "3.5.16");
  private static final Map<String, String> ALL_BACK =
      Map.of("m1", "3.4.23", "m2", "3.4.23", "m3", "3.4.23");

  private final TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance();
  private final FakeRestoreHosts hosts = new FakeRestoreHosts(MEMBERS, List.of("cp1", "cp2"));
  private RecordingActivities recording;

  @AfterEach
  void close() {
    env.close();
  }

  @Test
  void givenOneFollowerOnTheNewVersionItSwitchesItBackToTheOldestRunningAndPassesPostflight() {
    FakeCluster cluster = onNewVersion(mixed(), "m1");

    RollbackResult result =
        stub(cluster)
            .rollback(
                RollbackRequest.to(
                    "c", "", RunbookOptions.defaults().withMemberTimeoutSeconds(60)));

    assertThat(result.toVersion()).isEqualTo("3.4.23");
    assertThat(result.membersToRollBack()).containsExactly("m1");
    assertThat(cluster.running()).isEqualTo(ALL_BACK);
    assertThat(result.memberVersions()).isEqualTo(ALL_BACK);
    assertThat(result.restoredBackupId()).isEmpty();
    assertThat(recording.calls())
        .containsSubsequence(
            "EtcdActivities.discover",
            "ReleaseActivities.availableVersions",
            "HostActivities.checkAccess",
            "HostActivities.restartMember",
            "EtcdActivities.checkConsistency");
  }

  @Test
  void givenAMemberAnUpgradeLeftStoppedItStartsThatOneFirstAndSwitchesTheLeaderLast() {
    FakeCluster cluster = onNewVersion(mixed().clusterVersion("3.4.0"), "m1", "m3");
    cluster.stopMember(new MemberRef("c", "m2"));

    RollbackResult result =
        stub(cluster)
            .rollback(
                RollbackRequest.to(
                    "c", "3.4.23", RunbookOptions.defaults().withMemberTimeoutSeconds(60)));

    assertThat(result.membersToRollBack()).containsExactly("m2", "m1", "m3");
    assertThat(cluster.running()).isEqualTo(ALL_BACK);
    assertThat(recording.calls()).contains("EtcdActivities.moveLeader");
  }

  @Test
  void givenADryRunItNamesTheMembersInOrderAndTouchesNothing() {
    FakeCluster cluster = onNewVersion(mixed(), "m1", "m3");

    RollbackResult result =
        stub(cluster)
            .rollback(
                RollbackRequest.to(
                    "c",
                    "3.4.23",
                    RunbookOptions.defaults().asDryRun().withMemberTimeoutSeconds(60)));

    assertThat(result.dryRun()).isTrue();
    assertThat(result.membersToRollBack()).containsExactly("m1", "m3");
    assertThat(result.memberVersions()).containsEntry("m3", "3.5.16");
    assertThat(recording.calls())
        .doesNotContain("HostActivities.stopMember", "EtcdActivities.checkConsistency");
  }

  @Test
  void givenEveryMemberHealthyOnTheTargetItHasNothingToDoAndRestartsNothing() {
    FakeCluster cluster = mixed();

    RollbackResult result =
        stub(cluster)
            .rollback(
                RollbackRequest.to(
                    "c", "3.4.23", RunbookOptions.defaults().withMemberTimeoutSeconds(60)));

    assertThat(result.membersToRollBack()).isEmpty();
    assertThat(result.dryRun()).isFalse();
    assertThat(recording.calls())
        .doesNotContain("HostActivities.stopMember", "EtcdActivities.checkConsistency");
  }

  @Test
  void givenAClusterNoMemberOfWhichAnswersItRefusesSayingSo() {
    FakeCluster cluster = mixed();
    Throwable failure =
        workflowFailure(
            () ->
                stub(cluster, new HeldEtcd(cluster).unreachable())
                    .rollback(
                        RollbackRequest.to(
                            "c",
                            "3.4.23",
                            RunbookOptions.defaults().withMemberTimeoutSeconds(60))));

    assertRefused(failure, "no member of cluster 'c' answers");
  }

  @Test
  void givenAToVersionThatIsNoVersionItRefusesNamingIt() {
    Throwable failure =
        workflowFailure(
            () ->
                stub(mixed())
                    .rollback(
                        RollbackRequest.to(
                            "c", "3.4", RunbookOptions.defaults().withMemberTimeoutSeconds(60))));

    assertRefused(failure, "toVersion must look like 3.4.23, got '3.4'");
  }

  @Test
  void givenNoMemberSeesALeaderItRefusesPointingToARestore() {
    FakeCluster cluster = mixed();
    MEMBERS.forEach(m -> cluster.stopMember(new MemberRef("c", m)));

    Throwable failure =
        workflowFailure(
            () ->
                stub(cluster)
                    .rollback(
                        RollbackRequest.to(
                            "c",
                            "3.4.23",
                            RunbookOptions.defaults().withMemberTimeoutSeconds(60))));

    assertRefused(failure, "no member sees a leader", "Restore from a backup instead");
  }

  @Test
  void givenAToVersionTheBinarySourceDoesNotOfferItRefusesNamingWhatItOffers() {
    Throwable failure =
        workflowFailure(
            () ->
                stub(onNewVersion(mixed(), "m1"))
                    .rollback(
                        RollbackRequest.to(
                            "c",
                            "3.4.22",
                            RunbookOptions.defaults().withMemberTimeoutSeconds(60))));

    assertRefused(
        failure, "version 3.4.22 is not offered by the binary source (it has [3.4.23, 3.5.16])");
  }

  @Test
  void givenAHostItCannotTrustItRefusesBeforeTheFirstMemberNamingTheHost() {
    FakeCluster cluster =
        onNewVersion(mixed(), "m1")
            .hostProblems("member m1 (127.0.0.1:22): host key does not match");

    Throwable failure =
        workflowFailure(
            () ->
                stub(cluster)
                    .rollback(
                        RollbackRequest.to(
                            "c",
                            "3.4.23",
                            RunbookOptions.defaults().withMemberTimeoutSeconds(60))));

    assertRefused(failure, "member m1 (127.0.0.1:22): host key does not match");
    assertThat(recording.calls()).doesNotContain("HostActivities.stopMember");
  }

  @Test
  void givenTheClusterVersionMovedPastTheTargetWithoutAcknowledgementItRefusesNamingTheWayBack() {
    Throwable failure =
        workflowFailure(
            () ->
                stub(upgraded())
                    .rollback(
                        RollbackRequest.to(
                            "c",
                            "3.4.23",
                            RunbookOptions.defaults().withMemberTimeoutSeconds(60))));

    assertRefused(
        failure,
        "the cluster version is already 3.5.0, past 3.4.23",
        "pre-upgrade backup",
        "acknowledgeDataLoss: true",
        "the newest backup taken on 3.4 is used");
    assertThat(recording.calls()).doesNotContain("ReleaseActivities.availableVersions");
  }

  @Test
  void
      givenTheClusterVersionMovedPastTheTargetWithAcknowledgementItRestoresTheBackupWithTheOldBinariesAsAChild() {
    FakeCluster cluster = upgraded();

    RollbackResult result =
        stub(cluster)
            .rollback(
                RollbackRequest.to(
                        "c", "3.4.23", RunbookOptions.defaults().withMemberTimeoutSeconds(60))
                    .acknowledgingDataLoss());

    assertThat(result.restoredBackupId()).isEqualTo("b-1");
    assertThat(result.lostRevisions()).isEqualTo("revisions 11..250 (240)");
    assertThat(result.membersToRollBack()).containsExactlyElementsOf(MEMBERS);
    assertThat(result.memberVersions()).isEqualTo(ALL_BACK);
    assertThat(result.clusterVersion()).isEqualTo("3.4.0");
    assertThat(cluster.running()).isEqualTo(ALL_BACK);
    assertThat(hosts.restored()).containsExactlyElementsOf(MEMBERS);
    assertThat(recording.calls())
        .containsSubsequence(
            "ApiServerActivities.stopApiServer",
            "HostActivities.installVersion",
            "RestoreActivities.restoreMember",
            "ApiServerActivities.startApiServer",
            "EtcdActivities.discover");
  }

  @Test
  void givenNoToolThatRaisesTheRevisionTheRestoreChildRefusesAndTheRollbackSaysWhatToAcknowledge() {
    FakeCluster cluster = new FakeCluster("c", MEMBERS, "3.5.16", "m3", List.of("3.4.23"));

    Throwable failure =
        workflowFailure(
            () ->
                stub(cluster)
                    .rollback(
                        RollbackRequest.to(
                                "c",
                                "3.4.23",
                                RunbookOptions.defaults().withMemberTimeoutSeconds(60))
                            .acknowledgingDataLoss()));

    assertThat(Failures.rootMessage(failure))
        .contains("cannot raise the revision", "set acknowledgeRevisionsBackward");
    assertThat(hosts.restored()).isEmpty();
  }

  @Test
  void givenNoToolThatRaisesTheRevisionTheRollbacksAcknowledgementReachesTheRestoreChild() {
    FakeCluster cluster = new FakeCluster("c", MEMBERS, "3.5.16", "m3", List.of("3.4.23"));

    RollbackResult result =
        stub(cluster)
            .rollback(
                RollbackRequest.to(
                        "c", "3.4.23", RunbookOptions.defaults().withMemberTimeoutSeconds(60))
                    .acknowledgingDataLoss()
                    .withRevisionsBackwardAcknowledged(true));

    assertThat(result.restoredBackupId()).isEqualTo("b-1");
    assertThat(cluster.running()).isEqualTo(ALL_BACK);
    assertThat(hosts.restored()).containsExactlyElementsOf(MEMBERS);
  }

  @Test
  void givenADryRunPastAMovedClusterVersionItRunsTheRestoresOwnDryRunAndNamesTheBackup() {
    FakeCluster cluster = upgraded();

    RollbackResult result =
        stub(cluster)
            .rollback(
                RollbackRequest.to(
                        "c",
                        "3.4.23",
                        RunbookOptions.defaults().asDryRun().withMemberTimeoutSeconds(60))
                    .acknowledgingDataLoss());

    assertThat(result.dryRun()).isTrue();
    assertThat(result.restoredBackupId()).isEqualTo("b-1");
    assertThat(result.memberVersions()).containsEntry("m1", "3.5.16");
    assertThat(recording.calls())
        .doesNotContain("ApiServerActivities.stopApiServer", "HostActivities.stopMember");
  }

  @Test
  void givenARestoreChildThatFailsItEndsRollbackFailedWithTheRestoresMessage() {
    hosts.restoreFails("m2");

    Throwable failure =
        workflowFailure(
            () ->
                stub(upgraded())
                    .rollback(
                        RollbackRequest.to(
                                "c",
                                "3.4.23",
                                RunbookOptions.defaults().withMemberTimeoutSeconds(60))
                            .acknowledgingDataLoss()));

    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.RollbackFailed.name());
    assertThat(Failures.rootMessage(failure))
        .contains(
            "rollback of c to 3.4.23 through a restore failed",
            "stopped in phase RESTORE",
            "etcdutl snapshot restore failed on m2");
  }

  @Test
  void givenAMemberThatCannotBePutBackItEndsRollbackFailedNamingItAndWhatToDo() {
    FakeCluster cluster =
        onNewVersion(mixed(), "m1", "m2").installFails((member, version) -> member.equals("m2"));

    Throwable failure =
        workflowFailure(
            () ->
                stub(cluster)
                    .rollback(
                        RollbackRequest.to(
                            "c",
                            "3.4.23",
                            RunbookOptions.defaults().withMemberTimeoutSeconds(60))));

    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.RollbackFailed.name());
    assertThat(Failures.rootMessage(failure))
        .contains(
            "rollback of c to 3.4.23 failed at member m2",
            "cannot install etcd 3.4.23 on m2",
            "members already on 3.4.23 are skipped");
    assertThat(cluster.running()).containsEntry("m1", "3.4.23");
  }

  @Test
  void givenAMemberGoingDownDuringTheRollbackThePostflightFailsNamingIt() {
    FakeCluster cluster = onNewVersion(mixed(), "m1").whenStarted("m1", "m2");

    Throwable failure =
        workflowFailure(
            () ->
                stub(cluster)
                    .rollback(
                        RollbackRequest.to(
                            "c",
                            "3.4.23",
                            RunbookOptions.defaults().withMemberTimeoutSeconds(60))));

    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.PostflightFailed.name());
    assertThat(Failures.rootMessage(failure))
        .contains("rollback of c finished but postflight found", "member m2 is unreachable");
  }

  @Test
  void givenRequireApprovalItTouchesNoMemberUntilApproved() {
    FakeCluster cluster = onNewVersion(mixed(), "m1");
    RollbackClusterWorkflow rollback = stub(cluster);
    WorkflowClient.start(
        rollback::rollback,
        RollbackRequest.to(
            "c", "3.4.23", RunbookOptions.defaults().withApproval().withMemberTimeoutSeconds(60)));
    awaitPhase(env, rollback, Phase.AWAITING_APPROVAL);
    assertThat(recording.calls()).doesNotContain("HostActivities.stopMember");

    rollback.approve("on-call");

    assertThat(WorkflowStub.fromTyped(rollback).getResult(RollbackResult.class).memberVersions())
        .isEqualTo(ALL_BACK);
  }

  @Test
  void givenACancelWhileAwaitingApprovalItStopsHavingTouchedNothing() {
    FakeCluster cluster = onNewVersion(mixed(), "m1");
    RollbackClusterWorkflow rollback = stub(cluster);
    WorkflowClient.start(
        rollback::rollback,
        RollbackRequest.to(
            "c", "3.4.23", RunbookOptions.defaults().withApproval().withMemberTimeoutSeconds(60)));
    awaitPhase(env, rollback, Phase.AWAITING_APPROVAL);

    WorkflowStub.fromTyped(rollback).cancel();

    Throwable failure =
        workflowFailure(() -> WorkflowStub.fromTyped(rollback).getResult(RollbackResult.class));
    assertThat(failure).hasRootCauseInstanceOf(CanceledFailure.class);
    assertThat(recording.calls()).doesNotContain("HostActivities.stopMember");
    assertThat(cluster.running()).containsEntry("m1", "3.5.16");
  }

  @Test
  void givenACancelWhileAMemberIsSwitchedItFinishesThatMemberAndStopsBeforeTheNext()
      throws InterruptedException {
    FakeCluster cluster = onNewVersion(mixed(), "m1", "m2");
    HeldEtcd etcd = new HeldEtcd(cluster).holdWaitFor("m1");
    RollbackClusterWorkflow rollback = stub(cluster, etcd);
    WorkflowClient.start(
        rollback::rollback,
        RollbackRequest.to("c", "3.4.23", RunbookOptions.defaults().withMemberTimeoutSeconds(60)));
    assertThat(etcd.held.await(20, TimeUnit.SECONDS)).as("m1's wait reached").isTrue();

    WorkflowStub.fromTyped(rollback).cancel();
    for (int i = 0; i < 200 && !rollback.progress().message().startsWith("cancel requested"); i++)
      Thread.sleep(20);
    etcd.released.countDown();

    Throwable failure =
        workflowFailure(() -> WorkflowStub.fromTyped(rollback).getResult(RollbackResult.class));
    assertThat(failure).hasRootCauseInstanceOf(CanceledFailure.class);
    assertThat(rollback.progress().phase()).isEqualTo(Phase.CANCELLED);
    assertThat(rollback.progress().message()).contains("before member m2");
    assertThat(cluster.running()).containsEntry("m1", "3.4.23").containsEntry("m2", "3.5.16");
  }

  /** m3 leads; every member healthy on 3.4.23. */
  private static FakeCluster mixed() {
    return new FakeCluster("c", MEMBERS, "3.4.23", "m3", AVAILABLE);
  }

  /** Every member upgraded to 3.5.16: the cluster version is 3.5.0. */
  private static FakeCluster upgraded() {
    return new FakeCluster("c", MEMBERS, "3.5.16", "m3", AVAILABLE);
  }

  /** The members switched to 3.5.16 by hand, as an upgrade stopped part-way leaves them. */
  private static FakeCluster onNewVersion(FakeCluster cluster, String... members) {
    for (String m : members) {
      cluster.stopMember(new MemberRef("c", m));
      cluster.installVersion(new InstallRequest("c", m, "3.5.16"));
      cluster.startMember(new MemberRef("c", m));
    }
    return cluster;
  }

  private RollbackClusterWorkflow stub(FakeCluster cluster) {
    return stub(cluster, null);
  }

  /**
   * @param etcd answers the etcd activities in the cluster's place (null: the cluster does)
   */
  private RollbackClusterWorkflow stub(FakeCluster cluster, HeldEtcd etcd) {
    Worker worker = env.newWorker(QUEUE);
    worker.registerWorkflowImplementationTypes(
        RollbackClusterWorkflowImpl.class, RestoreClusterWorkflowImpl.class);
    recording =
        etcd == null
            ? new RecordingActivities(hosts, cluster)
            : new RecordingActivities(etcd, hosts, cluster);
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

  private static void assertRefused(Throwable failure, String... why) {
    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.RollbackRefused.name());
    assertThat(Failures.rootMessage(failure))
        .contains("rollback of c refused, nothing was touched")
        .contains(why);
  }
}
