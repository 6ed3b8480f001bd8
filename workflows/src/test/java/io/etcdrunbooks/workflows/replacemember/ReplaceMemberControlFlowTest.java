package io.etcdrunbooks.workflows.replacemember;

import static io.etcdrunbooks.workflows.testing.RunbookWaits.awaitPhase;
import static io.etcdrunbooks.workflows.testing.RunbookWaits.workflowFailure;
import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.RunbookIds;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.testing.HistoryExport;
import io.etcdrunbooks.workflows.testing.PhaseLog;
import io.etcdrunbooks.workflows.testing.RecordingActivities;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.failure.CanceledFailure;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

/**
 * Every way a member replacement can end, on a cluster in memory ({@link FakeReplacement}: no etcd,
 * no hosts), each in well under a second. The worker module's ReplaceMemberTest runs the same
 * runbook against real etcd processes.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class ReplaceMemberControlFlowTest {

  private static final String QUEUE = "replace-member-control-flow";
  private static final String ID = RunbookIds.changing("c");
  private static final MemberPlacement M4 = FakeReplacement.placement("m4", "10.0.0.4");
  private static final String M2_CLIENT = "https://10.0.0.2:2379";

  /**
   * The activities a replacement of m2 by m4 calls, in order, as the recorded real replacement has
   * them.
   */
  private static final List<String> REPLACEMENT_CALLS =
      List.of(
          "InventoryActivities.members",
          "EtcdActivities.discover",
          "MembershipActivities.listMembers",
          "InventoryActivities.checkWritable",
          "HostActivities.checkAccess",
          "NewMemberActivities.checkHost",
          "EtcdActivities.discover",
          "MembershipActivities.removeMember",
          "MembershipActivities.addMember",
          "MembershipActivities.listMembers",
          "NewMemberActivities.prepare",
          "NewMemberActivities.start",
          "MembershipActivities.awaitNewMemberReady",
          "MembershipActivities.promoteMember",
          "MembershipActivities.awaitNewMemberReady",
          "InventoryActivities.recordReplacement",
          "ApiServerActivities.controlPlaneHosts",
          "ApiServerActivities.replaceEtcdServer",
          "ApiServerActivities.awaitHealthy",
          "ApiServerActivities.replaceEtcdServer",
          "ApiServerActivities.awaitHealthy",
          "ApiServerActivities.replaceEtcdServer",
          "ApiServerActivities.awaitHealthy",
          "InventoryActivities.members",
          "KubernetesActivities.setKubeadmEtcdEndpoints",
          "EtcdActivities.discover",
          "MembershipActivities.listMembers",
          "EtcdActivities.checkConsistency");

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
    HistoryExport.ifAsked(env, ID, "replace-member-in-memory-" + testName);
    env.close();
  }

  @Test
  void
      givenADownMemberItIsReplacedOnANewHostAsALearnerEveryApiServerFollowsAndEachPhaseIsEnteredOnce() {
    FakeReplacement cluster = new FakeReplacement("c").down("m2");

    ReplaceMemberResult result = stub(cluster).replace(request(false, false));

    assertThat(result.outcome()).isEqualTo(ReplaceMemberResult.REPLACED);
    assertThat(result.joinedAsLearner()).isTrue();
    assertThat(result.members()).containsExactly("m1", "m3", "m4");
    assertThat(result.apiServersUpdated()).containsExactlyElementsOf(FakeReplacement.CONTROL_PLANE);
    assertThat(cluster.inventoryMembers()).containsExactly("m1", "m4", "m3");
    FakeReplacement.CONTROL_PLANE.forEach(
        host ->
            assertThat(cluster.etcdServers(host))
                .contains(M4.clientUrl())
                .doesNotContain(M2_CLIENT));
    assertThat(recording.calls()).containsExactlyElementsOf(REPLACEMENT_CALLS);
    assertThat(phases.left("ReplaceMember"))
        .containsExactly(
            "STARTING",
            "DISCOVER",
            "PREFLIGHT",
            "PLAN",
            "REMOVE",
            "JOIN",
            "INVENTORY",
            "APISERVERS",
            "POSTFLIGHT");
  }

  @Test
  void givenAnAlertsWatchAMemberThatAnswersAgainIsNotReplacedAndNothingIsTouched() {
    FakeReplacement cluster = new FakeReplacement("c").down("m2").comesBackAfter("m2", 5);

    ReplaceMemberResult result =
        stub(cluster).replace(request(false, false).confirmingDownFor(300));

    assertThat(result.outcome()).isEqualTo(ReplaceMemberResult.CANCELLED);
    assertThat(result.notes())
        .singleElement()
        .asString()
        .contains("m2 answered healthy again within 300 s");
    assertThat(cluster.etcdMembers()).containsExactly("m1", "m2", "m3");
    assertThat(recording.calls()).doesNotContain("MembershipActivities.removeMember");
  }

  @Test
  void givenAnAlertsWatchAMemberStillDownAtItsEndIsReplaced() {
    FakeReplacement cluster = new FakeReplacement("c").down("m2");

    ReplaceMemberResult result = stub(cluster).replace(request(false, false).confirmingDownFor(60));

    assertThat(result.outcome()).isEqualTo(ReplaceMemberResult.REPLACED);
    assertThat(recording.calls().stream().filter("EtcdActivities.discover"::equals).count())
        .as("looked at every 15 s for 60 s")
        .isGreaterThanOrEqualTo(4);
    assertThat(cluster.etcdMembers()).containsExactly("m1", "m3", "m4");
  }

  @Test
  void givenRequireApprovalItWaitsLooksAtTheClusterAgainOnceApprovedAndEntersPreflightOnce() {
    FakeReplacement cluster = new FakeReplacement("c").down("m2");
    ReplaceMemberWorkflow replace = stub(cluster);
    WorkflowClient.start(replace::replace, request(true, false));
    awaitPhase(env, replace, Phase.AWAITING_APPROVAL);
    assertThat(recording.calls()).doesNotContain("MembershipActivities.removeMember");

    replace.approve("on-call");

    assertThat(WorkflowStub.fromTyped(replace).getResult(ReplaceMemberResult.class).outcome())
        .isEqualTo(ReplaceMemberResult.REPLACED);
    assertThat(recording.calls().stream().filter("InventoryActivities.members"::equals))
        .as("discovered again; read once more for kubeadm-config's endpoints")
        .hasSize(3);
    assertThat(phases.left("ReplaceMember"))
        .containsExactly(
            "STARTING",
            "DISCOVER",
            "PREFLIGHT",
            "PLAN",
            "AWAITING_APPROVAL",
            "REMOVE",
            "JOIN",
            "INVENTORY",
            "APISERVERS",
            "POSTFLIGHT");
  }

  @Test
  void givenAPauseItRemovesTheFailedMemberThenHoldsBeforeTheJoinUntilResumed() {
    FakeReplacement cluster = new FakeReplacement("c").down("m2");
    ReplaceMemberWorkflow replace = stub(cluster);
    WorkflowClient.start(replace::replace, request(true, false));
    awaitPhase(env, replace, Phase.AWAITING_APPROVAL);
    replace.pause("on-call");
    replace.approve("on-call");

    awaitPhase(env, replace, Phase.JOIN);
    assertThat(replace.progress().paused()).isTrue();
    assertThat(cluster.etcdMembers()).containsExactly("m1", "m3");
    assertThat(recording.calls()).doesNotContain("MembershipActivities.addMember");

    replace.resume("on-call");
    assertThat(WorkflowStub.fromTyped(replace).getResult(ReplaceMemberResult.class).outcome())
        .isEqualTo(ReplaceMemberResult.REPLACED);
  }

  @Test
  void givenTheAlertResolvesBeforeApprovalItEndsCancelledHavingTouchedNothing() {
    FakeReplacement cluster = new FakeReplacement("c").down("m2");
    ReplaceMemberWorkflow replace = stub(cluster);
    WorkflowClient.start(replace::replace, request(true, false));
    awaitPhase(env, replace, Phase.AWAITING_APPROVAL);

    replace.alertResolved();

    assertThat(WorkflowStub.fromTyped(replace).getResult(ReplaceMemberResult.class).outcome())
        .isEqualTo(ReplaceMemberResult.CANCELLED);
    assertThat(replace.progress().phase()).isEqualTo(Phase.DONE);
    assertThat(replace.progress().message())
        .contains("the alert resolved before approval; nothing was touched");
    assertThat(cluster.etcdMembers()).containsExactly("m1", "m2", "m3");
    assertThat(recording.calls()).doesNotContain("MembershipActivities.removeMember");
  }

  @Test
  void givenACancelWhileAwaitingApprovalItStopsHavingTouchedNothing() {
    FakeReplacement cluster = new FakeReplacement("c").down("m2");
    ReplaceMemberWorkflow replace = stub(cluster);
    WorkflowClient.start(replace::replace, request(true, false));
    awaitPhase(env, replace, Phase.AWAITING_APPROVAL);

    WorkflowStub.fromTyped(replace).cancel();

    Throwable failure =
        workflowFailure(() -> WorkflowStub.fromTyped(replace).getResult(ReplaceMemberResult.class));
    assertThat(failure).hasRootCauseInstanceOf(CanceledFailure.class);
    assertThat(cluster.etcdMembers()).containsExactly("m1", "m2", "m3");
    assertThat(recording.calls()).doesNotContain("MembershipActivities.removeMember");
  }

  @Test
  void givenADryRunItPlansAReplacementOnTheSameHostAndTouchesNothing() {
    FakeReplacement cluster = new FakeReplacement("c").down("m2");

    ReplaceMemberResult result =
        stub(cluster)
            .replace(
                ReplaceMemberRequest.of(
                    "c", "m2", null, RunbookOptions.defaults().asDryRun(), "test"));

    assertThat(result.outcome()).isEqualTo(ReplaceMemberResult.DRY_RUN);
    assertThat(result.newMember().name()).isEqualTo("m2-r1");
    assertThat(result.newMember().peerUrl()).isEqualTo("https://10.0.0.2:2380");
    assertThat(recording.calls())
        .doesNotContain(
            "MembershipActivities.removeMember",
            "MembershipActivities.addMember",
            "InventoryActivities.recordReplacement",
            "ApiServerActivities.replaceEtcdServer");
    assertThat(cluster.etcdMembers()).containsExactly("m1", "m2", "m3");
  }

  @Test
  void givenTwoOfThreeMembersDownItRefusesNamingTheRecoverQuorumRunbook() {
    FakeReplacement cluster = new FakeReplacement("c").down("m2", "m3");

    Throwable failure = workflowFailure(() -> stub(cluster).replace(request(false, false)));

    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.ReplaceRefused.name());
    assertThat(Failures.rootMessage(failure))
        .contains(
            "replacement of m2 in cluster c refused, nothing was touched",
            "quorum",
            "RecoverQuorum runbook");
    assertThat(recording.calls()).doesNotContain("MembershipActivities.removeMember");
  }

  @Test
  void givenAHostItCannotTrustItRefusesBeforeRemovingAnything() {
    FakeReplacement cluster =
        new FakeReplacement("c")
            .down("m2")
            .hostProblems("member m3 (10.0.0.3:22): host key does not match known_hosts");

    Throwable failure = workflowFailure(() -> stub(cluster).replace(request(false, false)));

    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.ReplaceRefused.name());
    assertThat(Failures.rootMessage(failure))
        .contains("refused, nothing was touched", "member m3 (10.0.0.3:22)");
    assertThat(recording.calls())
        .doesNotContain("NewMemberActivities.checkHost", "MembershipActivities.removeMember");
  }

  @Test
  void startedUnderAnotherIdItRefusesAsWrongWorkflowIdCallingNoActivity() {
    FakeReplacement cluster = new FakeReplacement("c").down("m2");
    ReplaceMemberWorkflow replace = stub(cluster, "ui-1");

    Throwable failure = workflowFailure(() -> replace.replace(request(false, false)));

    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.WrongWorkflowId.name());
    assertThat(recording.calls()).isEmpty();
  }

  @Test
  void givenTheNewMemberCannotStartItIsRemovedAgainAndStoppedAndTheRunbookEndsJoinFailed() {
    FakeReplacement cluster =
        new FakeReplacement("c").down("m2").startFails("bind: address already in use");

    Throwable failure = workflowFailure(() -> stub(cluster).replace(request(false, false)));

    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.ReplacementJoinFailed.name());
    assertThat(Failures.rootMessage(failure))
        .contains(
            "the new member m4",
            "could not join: bind: address already in use",
            "Last log lines of m4",
            "removed from the membership again and its etcd stopped",
            "m2 stays removed",
            "Cluster now:");
    assertThat(cluster.etcdMembers()).containsExactly("m1", "m3");
    assertThat(cluster.undone()).containsExactly("discard m4");
    assertThat(cluster.inventoryMembers()).containsExactly("m1", "m2", "m3");
    assertThat(recording.calls())
        .containsSubsequence(
            "NewMemberActivities.start",
            "NewMemberActivities.logTail",
            "MembershipActivities.removeMember",
            "NewMemberActivities.discard",
            "EtcdActivities.discover");
    assertThat(phases.left("ReplaceMember")).endsWith("JOIN", "COMPENSATE");
  }

  @Test
  void givenRemovingTheNewMemberAgainFailsItStillStopsItAndTheFailureSaysWhatToUndoByHand() {
    FakeReplacement cluster =
        new FakeReplacement("c")
            .down("m2")
            .startFails("bind: address already in use")
            .removeFailsFor(M4.peerUrl());

    Throwable failure = workflowFailure(() -> stub(cluster).replace(request(false, false)));

    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.ReplacementJoinFailed.name());
    assertThat(Failures.rootMessage(failure))
        .contains(
            "Undoing it was not complete: removing it again failed",
            "remove the member with peer URL " + M4.peerUrl() + " by hand");
    assertThat(cluster.undone()).containsExactly("discard m4");
  }

  @Test
  void
      givenTheSecondApiServerStaysUnhealthyItsManifestIsPutBackTheFirstStaysOnTheNewSetAndTheRunbookEndsApiServerUpdateFailed() {
    FakeReplacement cluster = new FakeReplacement("c").down("m2").unhealthyAfterChange("cp-2");

    Throwable failure = workflowFailure(() -> stub(cluster).replace(request(false, false)));

    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.ApiServerUpdateFailed.name());
    assertThat(Failures.rootMessage(failure))
        .contains(
            "the kube-apiserver on cp-2 did not become healthy after its"
                + " --etcd-servers changed to list "
                + M4.clientUrl(),
            "Its previous manifest was put back.",
            "m4 replaced m2",
            "Apiservers already on the new set: [cp-1]; not yet: [cp-3]");
    assertThat(cluster.etcdServers("cp-1")).contains(M4.clientUrl());
    assertThat(cluster.etcdServers("cp-2")).contains(M2_CLIENT).doesNotContain(M4.clientUrl());
    assertThat(cluster.etcdServers("cp-3")).contains(M2_CLIENT);
    assertThat(cluster.undone()).containsExactly("restore manifest cp-2");
    assertThat(cluster.inventoryMembers())
        .as("the etcd side is done and recorded")
        .containsExactly("m1", "m4", "m3");
    assertThat(phases.left("ReplaceMember")).endsWith("APISERVERS", "COMPENSATE");
  }

  @Test
  void givenPuttingTheManifestBackFailsTooTheFailureSaysToRestoreItByHand() {
    FakeReplacement cluster =
        new FakeReplacement("c").down("m2").unhealthyAfterChange("cp-1").restoreFails("cp-1");

    Throwable failure = workflowFailure(() -> stub(cluster).replace(request(false, false)));

    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.ApiServerUpdateFailed.name());
    assertThat(Failures.rootMessage(failure))
        .contains(
            "Putting its previous manifest back failed too (cannot write the"
                + " manifest on cp-1)",
            "Apiservers already on the new set: []; not yet: [cp-2, cp-3]");
  }

  @Test
  void givenTheNewMemberStaysALearnerThePostflightFails() {
    FakeReplacement cluster = new FakeReplacement("c").down("m2").staysLearner();

    Throwable failure = workflowFailure(() -> stub(cluster).replace(request(false, false)));

    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.PostflightFailed.name());
    assertThat(Failures.rootMessage(failure))
        .contains(
            "member replacement in cluster c finished but postflight found",
            "member m4 is a learner");
    assertThat(recording.calls())
        .as("hashkv is compared only once the members are sound")
        .doesNotContain("EtcdActivities.checkConsistency");
  }

  private static ReplaceMemberRequest request(boolean requireApproval, boolean dryRun) {
    return ReplaceMemberRequest.of(
        "c",
        "m2",
        M4,
        RunbookOptions.defaults()
            .withDryRun(dryRun)
            .withApproval(requireApproval)
            .withMemberTimeoutSeconds(60)
            .withApiServerTimeoutSeconds(30),
        "test");
  }

  private ReplaceMemberWorkflow stub(FakeReplacement cluster) {
    return stub(cluster, ID);
  }

  private ReplaceMemberWorkflow stub(FakeReplacement cluster, String workflowId) {
    Worker worker = env.newWorker(QUEUE);
    worker.registerWorkflowImplementationTypes(ReplaceMemberWorkflowImpl.class);
    recording = new RecordingActivities(cluster);
    recording.registerOn(worker);
    env.start();
    return env.getWorkflowClient()
        .newWorkflowStub(
            ReplaceMemberWorkflow.class,
            WorkflowOptions.newBuilder().setWorkflowId(workflowId).setTaskQueue(QUEUE).build());
  }
}
