package io.etcdrunbooks.workflows.downgrade;

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
import io.etcdrunbooks.workflows.testing.FakeCluster;
import io.etcdrunbooks.workflows.testing.FakeDowngrade;
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
 * Every way a downgrade can end, on a cluster in memory (no etcd, no hosts), etcd's downgrade kept
 * as 3.6 keeps it ({@link FakeDowngrade}). DowngradeClusterTest in the worker module runs the same
 * runbook against real etcd.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class DowngradeControlFlowTest {

  private static final String QUEUE = "downgrade-control-flow";
  private static final List<String> MEMBERS = List.of("m1", "m2", "m3");
  private static final List<String> AVAILABLE = List.of("3.5.35", "3.6.16", "3.7.3");
  private static final Map<String, String> ALL_DOWN =
      Map.of("m1", "3.5.35", "m2", "3.5.35", "m3", "3.5.35");
  private static final Map<String, String> ALL_ON_36 =
      Map.of("m1", "3.6.16", "m2", "3.6.16", "m3", "3.6.16");

  private final TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance();
  private RecordingActivities recording;

  @AfterEach
  void close() {
    env.close();
  }

  @Test
  void givenThreeMembersOn36ItEnablesAwaitsTheStorageVersionAndSwitchesFollowersThenTheLeader() {
    FakeCluster cluster = on36();
    FakeDowngrade downgrade = new FakeDowngrade(cluster);

    DowngradeResult result = stub(cluster, downgrade).downgrade(request("3.5.35", options()));

    assertThat(result.membersToDowngrade()).containsExactly("m2", "m3", "m1");
    assertThat(cluster.running()).isEqualTo(ALL_DOWN);
    assertThat(result.memberVersions()).isEqualTo(ALL_DOWN);
    assertThat(result.clusterVersion()).isEqualTo("3.5.0");
    assertThat(result.storageVersion()).isEqualTo("3.5.0");
    assertThat(downgrade.cancelledWhile).isEmpty();
    assertThat(recording.calls())
        .containsSubsequence(
            "EtcdActivities.discover",
            "DowngradeActivities.status",
            "ReleaseActivities.availableVersions",
            "HostActivities.checkAccess",
            "DowngradeActivities.validate",
            "DowngradeActivities.enable",
            "DowngradeActivities.awaitStorageVersion",
            "HostActivities.restartMember",
            "HostActivities.restartMember",
            "EtcdActivities.moveLeader",
            "HostActivities.restartMember",
            "EtcdActivities.checkConsistency");
  }

  @Test
  void givenEtcdRefusesTheDowngradeItRefusesWithEtcdsReasonHavingTouchedNothing() {
    FakeCluster cluster = on36();
    FakeDowngrade downgrade =
        new FakeDowngrade(cluster).refusing("etcdserver: invalid downgrade target version");

    Throwable failure =
        workflowFailure(() -> stub(cluster, downgrade).downgrade(request("3.5.35", options())));

    assertRefused(
        failure, "etcd refuses the downgrade to 3.5: etcdserver: invalid downgrade target version");
    assertThat(recording.calls())
        .doesNotContain("DowngradeActivities.enable", "HostActivities.restartMember");
    assertThat(cluster.running()).isEqualTo(ALL_ON_36);
  }

  @Test
  void givenATargetTwoMinorsBelowTheClusterVersionItRefusesNamingTheStepBetween() {
    FakeCluster cluster = new FakeCluster("c", MEMBERS, "3.7.3", "m1", AVAILABLE);

    Throwable failure =
        workflowFailure(
            () ->
                stub(cluster, new FakeDowngrade(cluster)).downgrade(request("3.5.35", options())));

    assertRefused(
        failure,
        "toVersion 3.5.35 is not exactly one minor below the cluster version 3.7.0",
        "to 3.6.x first");
    assertThat(recording.calls()).doesNotContain("DowngradeActivities.validate");
  }

  @Test
  void givenATargetOlderThan35ItRefusesPointingToARestore() {
    FakeCluster cluster =
        new FakeCluster("c", MEMBERS, "3.5.35", "m1", List.of("3.4.23", "3.5.35"));

    Throwable failure =
        workflowFailure(
            () ->
                stub(cluster, new FakeDowngrade(cluster)).downgrade(request("3.4.23", options())));

    assertRefused(failure, "toVersion 3.4.23 is older than 3.5", "RestoreCluster");
  }

  @Test
  void givenAMemberDownItRefusesNamingIt() {
    FakeCluster cluster = on36();
    cluster.stopMember(new MemberRef("c", "m3"));

    Throwable failure =
        workflowFailure(
            () ->
                stub(cluster, new FakeDowngrade(cluster)).downgrade(request("3.5.35", options())));

    assertRefused(failure, "member m3 is unreachable");
    assertThat(recording.calls()).doesNotContain("DowngradeActivities.validate");
  }

  @Test
  void givenTheTargetsBinariesNotOnOfferItRefusesNamingThem() {
    FakeCluster cluster = new FakeCluster("c", MEMBERS, "3.6.16", "m1", List.of("3.6.16"));

    Throwable failure =
        workflowFailure(
            () ->
                stub(cluster, new FakeDowngrade(cluster)).downgrade(request("3.5.35", options())));

    assertRefused(failure, "the binary source does not offer [3.5.35] (it has [3.6.16])");
  }

  @Test
  void givenADryRunItNamesTheOrderAndEnablesNothing() {
    FakeCluster cluster = on36();
    FakeDowngrade downgrade = new FakeDowngrade(cluster);

    DowngradeResult result =
        stub(cluster, downgrade).downgrade(request("3.5.35", options().asDryRun()));

    assertThat(result.dryRun()).isTrue();
    assertThat(result.membersToDowngrade()).containsExactly("m2", "m3", "m1");
    assertThat(downgrade.enables()).isZero();
    assertThat(cluster.running()).isEqualTo(ALL_ON_36);
    assertThat(recording.calls())
        .doesNotContain(
            "DowngradeActivities.enable",
            "DowngradeActivities.cancel",
            "HostActivities.restartMember",
            "EtcdActivities.moveLeader");
  }

  @Test
  void givenAMemberThatFailsOnTheOlderVersionItCancelsTheDowngradeWhileMixedThenPutsMembersBack() {
    FakeCluster cluster = on36().exitsOnStart("m3", "3.5.35");
    FakeDowngrade downgrade = new FakeDowngrade(cluster);

    Throwable failure =
        workflowFailure(() -> stub(cluster, downgrade).downgrade(request("3.5.35", options())));

    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.DowngradeRolledBack.name());
    assertThat(Failures.rootMessage(failure))
        .contains(
            "downgrade of c to 3.5.35 failed at member m3",
            "exited right after it was started",
            "Undone: etcd downgrade cancel, m3 back on 3.6.16, m2 back on 3.6.16",
            "Next: fix m3's host");
    assertThat(downgrade.cancelledWhile).hasSize(1);
    assertThat(downgrade.cancelledWhile.get(0)).containsEntry("m2", "3.5.35");
    assertThat(cluster.running()).isEqualTo(ALL_ON_36);
    assertThat(
            cluster.discover(new io.etcdrunbooks.workflows.model.ClusterRef("c")).clusterVersion())
        .isEqualTo("3.6.0");
  }

  @Test
  void givenADowngradeAnEarlierRunEnabledItTakesItUpAndSkipsTheMembersAlreadyDown() {
    FakeCluster cluster = on36();
    onVersion(cluster, "3.5.35", "m2");
    FakeDowngrade downgrade = new FakeDowngrade(cluster).alreadyEnabled("3.5");

    DowngradeResult result = stub(cluster, downgrade).downgrade(request("3.5.35", options()));

    assertThat(result.membersToDowngrade()).containsExactly("m3", "m1");
    assertThat(downgrade.enables()).isZero();
    assertThat(recording.calls()).doesNotContain("DowngradeActivities.validate");
    assertThat(cluster.running()).isEqualTo(ALL_DOWN);
  }

  @Test
  void givenAnOperatorsCancelBetweenMembersItCancelsTheDowngradeAndPutsTheSwitchedMemberBack() {
    FakeCluster cluster = on36();
    FakeDowngrade downgrade = new FakeDowngrade(cluster);
    DowngradeClusterWorkflow run = stub(cluster, downgrade);
    cluster.afterRestartOf("m2", () -> WorkflowStub.fromTyped(run).cancel());
    WorkflowClient.start(run::downgrade, request("3.5.35", options()));

    Throwable failure =
        workflowFailure(() -> WorkflowStub.fromTyped(run).getResult(DowngradeResult.class));

    assertThat(failure).hasRootCauseInstanceOf(CanceledFailure.class);
    assertThat(run.progress().phase()).isEqualTo(Phase.CANCELLED);
    assertThat(run.progress().message())
        .contains("cancelled before member m3", "etcd downgrade cancel, m2 back on 3.6.16");
    assertThat(downgrade.cancelledWhile.get(0)).containsEntry("m2", "3.5.35");
    assertThat(cluster.running()).isEqualTo(ALL_ON_36);
  }

  @Test
  void givenRequireApprovalItEnablesNothingUntilApproved() {
    FakeCluster cluster = on36();
    FakeDowngrade downgrade = new FakeDowngrade(cluster);
    DowngradeClusterWorkflow run = stub(cluster, downgrade);
    WorkflowClient.start(run::downgrade, request("3.5.35", options().withApproval()));
    awaitPhase(env, run, Phase.AWAITING_APPROVAL);
    assertThat(downgrade.enables()).isZero();

    run.approve("on-call");

    assertThat(WorkflowStub.fromTyped(run).getResult(DowngradeResult.class).memberVersions())
        .isEqualTo(ALL_DOWN);
  }

  /** m1 leads; every member healthy on 3.6.16. */
  private static FakeCluster on36() {
    return new FakeCluster("c", MEMBERS, "3.6.16", "m1", AVAILABLE);
  }

  private static void onVersion(FakeCluster cluster, String version, String... members) {
    for (String m : members) {
      cluster.stopMember(new MemberRef("c", m));
      cluster.installVersion(new InstallRequest("c", m, version));
      cluster.startMember(new MemberRef("c", m));
    }
  }

  private static RunbookOptions options() {
    return RunbookOptions.defaults().withMemberTimeoutSeconds(60);
  }

  private static DowngradeRequest request(String version, RunbookOptions options) {
    return DowngradeRequest.to("c", version, options);
  }

  private DowngradeClusterWorkflow stub(FakeCluster cluster, FakeDowngrade downgrade) {
    Worker worker = env.newWorker(QUEUE);
    worker.registerWorkflowImplementationTypes(DowngradeClusterWorkflowImpl.class);
    recording = new RecordingActivities(downgrade, cluster);
    recording.registerOn(worker);
    env.start();
    return env.getWorkflowClient()
        .newWorkflowStub(
            DowngradeClusterWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(RunbookIds.changing("c"))
                .setTaskQueue(QUEUE)
                .build());
  }

  private static void assertRefused(Throwable failure, String... why) {
    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.DowngradeRefused.name());
    assertThat(Failures.rootMessage(failure))
        .contains("downgrade of c refused, nothing was touched")
        .contains(why);
  }
}
