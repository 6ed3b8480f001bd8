package io.etcdrunbooks.workflows.restore;

import static io.etcdrunbooks.workflows.testing.RunbookWaits.awaitPhase;
import static io.etcdrunbooks.workflows.testing.RunbookWaits.workflowFailure;
import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.RunbookIds;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.model.MemberRef;
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
 * Every way a restore can end, on a cluster and hosts in memory (no etcd, no SSH, no
 * kube-apiserver): each runs in milliseconds. RestoreClusterTest in the worker module runs the same
 * runbook against real processes.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class RestoreControlFlowTest {

  private static final String QUEUE = "restore-control-flow";
  private static final List<String> MEMBERS = List.of("m1", "m2", "m3");
  private static final List<String> CONTROL_PLANE = List.of("cp1", "cp2", "cp3");

  private final TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance();
  private FakeCluster cluster =
      new FakeCluster("c", MEMBERS, "3.4.23", "m1", List.of("3.4.23", "3.5.16"));
  private final FakeRestoreHosts hosts = new FakeRestoreHosts(MEMBERS, CONTROL_PLANE);
  private RecordingActivities recording;

  @AfterEach
  void close() {
    env.close();
  }

  @Test
  void
      givenAnAcknowledgedRestoreItStopsTheApiServersAndMembersRestoresEachMemberAndBringsTheApiServersBackInOrder() {
    RestoreResult result = stub().restore(restore(false));

    assertThat(hosts.restored()).containsExactlyElementsOf(MEMBERS);
    assertThat(hosts.stoppedApiServers()).isEmpty();
    assertThat(result.apiServersRestarted()).containsExactlyElementsOf(CONTROL_PLANE);
    assertThat(result.backup().id()).isEqualTo("b-1");
    assertThat(result.lostRevisions()).isEqualTo("revisions 11..250 (240)");
    assertThat(result.dataDirsKeptAside())
        .containsEntry("m2", "/var/lib/etcd-m2.before-restore-" + result.restoreId());
    assertThat(result.memberVersions())
        .isEqualTo(Map.of("m1", "3.4.23", "m2", "3.4.23", "m3", "3.4.23"));
    assertThat(result.dryRun()).isFalse();
    assertThat(recording.calls())
        .containsSubsequence(
            "InventoryActivities.members",
            "RestoreActivities.checkBackup",
            "HostActivities.checkAccess",
            "ApiServerActivities.stopApiServer",
            "HostActivities.stopMember",
            "RestoreActivities.keepDataDirAside",
            "RestoreActivities.restoreMember",
            "HostActivities.startMember",
            "EtcdActivities.awaitMemberReady",
            "EtcdActivities.awaitClusterVersion",
            "EtcdActivities.keyspaceDigest",
            "EtcdActivities.checkConsistency",
            "ApiServerActivities.startApiServer",
            "ApiServerActivities.awaitHealthy");
    assertThat(recording.calls()).doesNotContain("HostActivities.installVersion");
  }

  @Test
  void givenAnEtcdVersionItInstallsItOnEveryMemberBetweenKeepingItsDataAsideAndRestoring() {
    RestoreResult result =
        stub()
            .restore(
                RestoreRequest.of(
                        "c",
                        "",
                        RunbookOptions.defaults()
                            .withMemberTimeoutSeconds(60)
                            .withApiServerTimeoutSeconds(30))
                    .acknowledgingDataLoss()
                    .withEtcdVersion(" 3.5.16 "));

    assertThat(result.memberVersions())
        .isEqualTo(Map.of("m1", "3.5.16", "m2", "3.5.16", "m3", "3.5.16"));
    assertThat(recording.calls())
        .containsSubsequence(
            "HostActivities.stopMember",
            "RestoreActivities.keepDataDirAside",
            "HostActivities.installVersion",
            "RestoreActivities.restoreMember");
  }

  @Test
  void givenAnEtcdVersionEachMembersFlagsAreTranslatedForItAfterItsInstall() {
    cluster.startedWith(
        "m2", "--feature-gates=InitialCorruptCheck=true", "--watch-progress-notify-interval=5s");

    stub().restore(restore(false).withEtcdVersion("3.5.16"));

    assertThat(cluster.memberFlags(new MemberRef("c", "m2")).args())
        .containsExactly(
            "--experimental-initial-corrupt-check=true",
            "--experimental-watch-progress-notify-interval=5s");
    assertThat(recording.calls())
        .containsSubsequence(
            "HostActivities.checkAccess",
            "HostActivities.translateFlags",
            "HostActivities.stopMember",
            "HostActivities.installVersion",
            "HostActivities.translateFlags",
            "RestoreActivities.restoreMember");
  }

  @Test
  void givenAFeatureGateTheVersionCannotBeGivenItRefusesNamingItBeforeStoppingAnything() {
    cluster.startedWith("m3", "--feature-gates=NoSuchGate=true");

    Throwable failure =
        workflowFailure(() -> stub().restore(restore(false).withEtcdVersion("3.5.16")));

    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.RestoreRefused.name());
    assertThat(Failures.rootMessage(failure))
        .contains("nothing was touched", "member m3", "NoSuchGate", "does not know");
    assertThat(recording.calls()).doesNotContain("HostActivities.stopMember");
  }

  @Test
  void givenADryRunItPlansNamingTheRevisionsLostAndStopsNothing() {
    RestoreResult result = stub().restore(restore(true));

    assertThat(result.dryRun()).isTrue();
    assertThat(result.lostRevisions()).isEqualTo("revisions 11..250 (240)");
    assertThat(result.memberVersions()).containsEntry("m3", "3.4.23");
    assertThat(recording.calls())
        .doesNotContain("ApiServerActivities.stopApiServer", "HostActivities.stopMember");
  }

  @Test
  void givenMembersWhoseOwnToolCannotRaiseTheRevisionTheyAreRestoredWithANewerEtcdutl() {
    stub().restore(restore(false));

    assertThat(hosts.restoreTools())
        .isEqualTo(Map.of("m1", "3.5.16", "m2", "3.5.16", "m3", "3.5.16"));
  }

  @Test
  void givenNoReleaseThatRaisesTheRevisionItRefusesBeforeStoppingAnythingUnlessAcknowledged() {
    cluster = new FakeCluster("c", MEMBERS, "3.4.23", "m1", List.of("3.4.23", "3.5.9"));

    Throwable failure = workflowFailure(() -> stub().restore(restore(false)));

    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.RestoreRefused.name());
    assertThat(Failures.rootMessage(failure))
        .contains(
            "members [m1 (3.4.23), m2 (3.4.23), m3 (3.4.23)] would be restored with their own",
            "it has [3.4.23, 3.5.9]",
            "revision would go back from 250 to the backup's 10",
            "acknowledgeRevisionsBackward");
    assertThat(recording.calls())
        .doesNotContain("ApiServerActivities.stopApiServer", "HostActivities.stopMember");
  }

  @Test
  void givenRevisionsGoingBackAcknowledgedItRestoresWithTheMembersOwnTools() {
    cluster = new FakeCluster("c", MEMBERS, "3.4.23", "m1", List.of("3.4.23"));

    stub().restore(restore(false).withRevisionsBackwardAcknowledged(true));

    assertThat(hosts.restoreTools()).isEqualTo(Map.of("m1", "", "m2", "", "m3", ""));
  }

  @Test
  void givenNoAcknowledgementOfDataLossItRefusesBeforeItsFirstActivity() {
    Throwable failure =
        workflowFailure(
            () ->
                stub()
                    .restore(
                        RestoreRequest.of(
                                "c",
                                "",
                                RunbookOptions.defaults()
                                    .withMemberTimeoutSeconds(60)
                                    .withApiServerTimeoutSeconds(30))
                            .withEtcdVersion("")));

    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.RestoreRefused.name());
    assertThat(Failures.rootMessage(failure))
        .contains("restore of c refused, nothing was touched", "acknowledgeDataLoss must be true");
    assertThat(recording.calls()).isEmpty();
  }

  @Test
  void givenAnEtcdVersionThatIsNoVersionItRefusesBeforeItsFirstActivity() {
    Throwable failure =
        workflowFailure(
            () ->
                stub()
                    .restore(
                        RestoreRequest.of(
                                "c",
                                "",
                                RunbookOptions.defaults()
                                    .withMemberTimeoutSeconds(60)
                                    .withApiServerTimeoutSeconds(30))
                            .acknowledgingDataLoss()
                            .withEtcdVersion("3.5")));

    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.RestoreRefused.name());
    assertThat(Failures.rootMessage(failure))
        .contains("etcdVersion must look like 3.4.23", "got '3.5'");
    assertThat(recording.calls()).isEmpty();
  }

  @Test
  void givenAClusterTheInventoryDoesNotHaveItRefusesNamingIt() {
    hosts.unknownCluster();
    Throwable failure = workflowFailure(() -> stub().restore(restore(false)));

    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.RestoreRefused.name());
    assertThat(Failures.rootMessage(failure)).contains("no cluster 'c' in the inventory");
  }

  @Test
  void givenACorruptBackupAndAHostItCannotTrustItRefusesNamingBothBeforeStoppingAnything() {
    hosts.backupCorrupt("backup b-1 is truncated");
    cluster.hostProblems(
        "control-plane host cp2 (10.0.0.2:22): host key does not match known_hosts");
    Throwable failure = workflowFailure(() -> stub().restore(restore(false)));

    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.RestoreRefused.name());
    assertThat(Failures.rootMessage(failure))
        .contains(
            "refused, nothing was touched", "backup b-1 is truncated", "control-plane host cp2");
    assertThat(recording.calls())
        .doesNotContain("ApiServerActivities.stopApiServer", "HostActivities.stopMember");
  }

  @Test
  void givenAnEtcdVersionOfAnOlderMinorThanTheBackupsItRefusesNamingEachMember() {
    hosts.keeps(FakeRestoreHosts.backup("b-2", "3.5.16", 10));
    Throwable failure =
        workflowFailure(
            () ->
                stub()
                    .restore(
                        RestoreRequest.of(
                                "c",
                                "b-2",
                                RunbookOptions.defaults()
                                    .withMemberTimeoutSeconds(60)
                                    .withApiServerTimeoutSeconds(30))
                            .acknowledgingDataLoss()
                            .withEtcdVersion("3.4.23")));

    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.RestoreRefused.name());
    assertThat(Failures.rootMessage(failure))
        .contains(
            "member m1 would run etcd 3.4.23, older than the 3.5.16 that took" + " backup b-2",
            "member m3 would run");
    assertThat(recording.calls()).doesNotContain("ApiServerActivities.stopApiServer");
  }

  @Test
  void
      givenAMemberWhoseRestoreFailsItEndsRestoreFailedNamingThePhaseTheDataDirsKeptAsideAndTheApiServersLeftStopped() {
    hosts.restoreFails("m2");
    Throwable failure = workflowFailure(() -> stub().restore(restore(false)));

    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.RestoreFailed.name());
    assertThat(Failures.rootMessage(failure))
        .contains(
            "restore of c from backup b-1 stopped in phase RESTORE",
            "etcdutl snapshot restore failed on m2",
            "kept aside: {m1=/var/lib/etcd-m1.before-restore-",
            "kube-apiservers still stopped: [cp1, cp2, cp3]",
            "start the restore again");
    assertThat(hosts.stoppedApiServers())
        .as("nothing is undone: apiservers on a half-restored etcd would serve from it")
        .containsExactlyElementsOf(CONTROL_PLANE);
    assertThat(recording.calls())
        .doesNotContain("HostActivities.startMember", "ApiServerActivities.startApiServer");
  }

  @Test
  void
      givenAKubeApiServerThatCannotBeStoppedItEndsRestoreFailedNamingTheOnesAlreadyStoppedAndTouchesNoMember() {
    hosts.apiServerStopFails("cp2");
    Throwable failure = workflowFailure(() -> stub().restore(restore(false)));

    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.RestoreFailed.name());
    assertThat(Failures.rootMessage(failure))
        .contains(
            "stopped in phase STOP_APISERVERS",
            "no manifest on cp2",
            "kube-apiservers still stopped: [cp1]",
            "kept aside: {}");
    assertThat(recording.calls()).doesNotContain("HostActivities.stopMember");
  }

  @Test
  void givenARestoredRevisionThatIsNotTheBackupsThePostflightFailsLeavingTheApiServersStopped() {
    hosts.keeps(FakeRestoreHosts.backup("b-3", "3.4.23", 7));
    Throwable failure = workflowFailure(() -> stub().restore(restore(false)));

    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.RestoreFailed.name());
    assertThat(Failures.rootMessage(failure))
        .contains(
            "restore of c from backup b-3 finished but postflight found",
            "the restored cluster is at revision 10, expected 7",
            "The kube-apiservers were left stopped",
            "kube-apiservers still stopped: [cp1, cp2, cp3]");
    assertThat(hosts.stoppedApiServers()).containsExactlyElementsOf(CONTROL_PLANE);
  }

  @Test
  void givenRequireApprovalItStopsNothingUntilApprovedThenRestores() {
    RestoreClusterWorkflow restore = stub();
    WorkflowClient.start(restore::restore, approved(true));
    awaitPhase(env, restore, Phase.AWAITING_APPROVAL);
    assertThat(recording.calls()).doesNotContain("ApiServerActivities.stopApiServer");

    restore.approve("on-call");

    assertThat(WorkflowStub.fromTyped(restore).getResult(RestoreResult.class).apiServersRestarted())
        .hasSize(3);
    assertThat(hosts.restored()).containsExactlyElementsOf(MEMBERS);
  }

  @Test
  void givenACancelWhileAwaitingApprovalItStopsHavingStoppedNothing() {
    RestoreClusterWorkflow restore = stub();
    WorkflowClient.start(restore::restore, approved(true));
    awaitPhase(env, restore, Phase.AWAITING_APPROVAL);

    WorkflowStub.fromTyped(restore).cancel();

    Throwable failure =
        workflowFailure(() -> WorkflowStub.fromTyped(restore).getResult(RestoreResult.class));
    assertThat(failure).hasRootCauseInstanceOf(CanceledFailure.class);
    assertThat(restore.progress().phase()).isEqualTo(Phase.CANCELLED);
    assertThat(recording.calls())
        .doesNotContain("ApiServerActivities.stopApiServer", "HostActivities.stopMember");
    assertThat(cluster.running()).isEqualTo(Map.of("m1", "3.4.23", "m2", "3.4.23", "m3", "3.4.23"));
  }

  @Test
  void
      givenARestoreEveryControlPlaneHostsControllersAreMovedOutOnceTheApiServersAreBackThenPutBackAndTheKubeletsNamed() {
    hosts.controllersLeftOut("cp2"); // as a crash between out and back leaves them

    RestoreResult result = stub().restore(restore(false));

    assertThat(hosts.controllersOut()).isEmpty();
    assertThat(result.controllersRestarted())
        .hasSize(6)
        .contains(
            "cp1: /etc/kubernetes/manifests/kube-controller-manager.yaml",
            "cp3: /etc/kubernetes/manifests/kube-scheduler.yaml");
    assertThat(result.kubeletsToRestart())
        .containsExactly("cp1", "cp2", "cp3", "every worker node");
    assertThat(result.oldMembersLeftRunning()).isEmpty();
    assertThat(recording.calls())
        .containsSubsequence(
            "ApiServerActivities.startApiServer",
            "ApiServerActivities.awaitHealthy",
            "ApiServerActivities.startApiServer",
            "ApiServerActivities.awaitHealthy",
            "ApiServerActivities.startApiServer",
            "ApiServerActivities.awaitHealthy",
            "ApiServerActivities.moveControllersOut",
            "ApiServerActivities.moveControllersOut",
            "ApiServerActivities.moveControllersOut",
            "ApiServerActivities.putControllersBack",
            "ApiServerActivities.putControllersBack",
            "ApiServerActivities.putControllersBack");
  }

  @Test
  void givenNewMembersThatRepeatANameOrAUrlOrTakeAnOldMembersItRefusesBeforeAnyHostIsRead() {
    RestoreRequest request =
        restore(false)
            .withNewMembers(
                List.of(
                    placement("n1", "https://n1:2380", "https://n1:2379"),
                    placement("n1", "https://n2:2380", "https://n1:2379"),
                    placement("n3", "https://m3:2380", "ftp://n3")));

    Throwable failure = workflowFailure(() -> stub().restore(request));

    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.RestoreRefused.name());
    assertThat(Failures.rootMessage(failure))
        .contains("new member n1 is named twice")
        .contains("clientUrl https://n1:2379 is given twice")
        .contains("peerUrl https://m3:2380 is an inventory member's")
        .contains("clientUrl ftp://n3 is not http:// or https://");
    assertThat(recording.calls())
        .doesNotContain(
            "RestoreActivities.checkBackup",
            "NewMemberActivities.checkHost",
            "ApiServerActivities.stopApiServer");
  }

  @Test
  void givenANewHostThatAlreadyRunsEtcdItRefusesNamingItBeforeAnythingIsStopped() {
    hosts.newHostsTaken("n2.example already runs etcd (plain)");
    RestoreRequest request =
        restore(false)
            .withNewMembers(
                List.of(
                    placement("n1", "https://n1:2380", "https://n1:2379"),
                    placement("n2", "https://n2:2380", "https://n2:2379"),
                    placement("n3", "https://n3:2380", "https://n3:2379")));

    Throwable failure = workflowFailure(() -> stub().restore(request));

    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.RestoreRefused.name());
    assertThat(Failures.rootMessage(failure))
        .contains("new member n1: n2.example already runs etcd");
    assertThat(recording.calls())
        .contains("NewMemberActivities.checkHost", "NewMemberActivities.checkPlacement")
        .doesNotContain(
            "ApiServerActivities.stopApiServer",
            "HostActivities.stopMember",
            "NewMemberActivities.prepare");
  }

  @Test
  void
      givenAControlPlaneHostLackingABackedUpEncryptionKeyItRefusesNamingItBeforeAnythingIsStopped() {
    hosts.encryptionKeyMissingOnCp2();

    Throwable failure = workflowFailure(() -> stub().restore(restore(false)));

    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.RestoreRefused.name());
    assertThat(Failures.rootMessage(failure))
        .contains("cp2: the kube-apiserver's EncryptionConfiguration /etc/kubernetes/enc.yaml")
        .contains("[aescbc/key1]");
    assertThat(recording.calls())
        .doesNotContain("ApiServerActivities.stopApiServer", "HostActivities.stopMember");
  }

  @Test
  void
      givenPutBackEncryptionConfigTheBackupsCopyIsWrittenWhileTheApiServerIsStoppedBeforeItStarts() {
    hosts.encryptionKeyMissingOnCp2();

    RestoreResult result = stub().restore(restore(false).withEncryptionConfigPutBack(true));

    assertThat(hosts.encryptionConfigPutBack()).containsExactly("cp2 (stopped)");
    assertThat(result.encryptionConfigPutBack()).containsExactly("cp2");
    assertThat(result.apiServersRestarted()).containsExactlyElementsOf(CONTROL_PLANE);
  }

  private static io.etcdrunbooks.workflows.model.MemberPlacement placement(
      String name, String peerUrl, String clientUrl) {
    return new io.etcdrunbooks.workflows.model.MemberPlacement(
        name, name + ".example", 22, peerUrl, clientUrl, "", "", "");
  }

  private static RestoreRequest restore(boolean dryRun) {
    return RestoreRequest.of(
            "c",
            "",
            RunbookOptions.defaults()
                .withDryRun(dryRun)
                .withMemberTimeoutSeconds(60)
                .withApiServerTimeoutSeconds(30))
        .acknowledgingDataLoss()
        .withEtcdVersion("");
  }

  private static RestoreRequest approved(boolean requireApproval) {
    return RestoreRequest.of(
            "c",
            "",
            RunbookOptions.defaults()
                .withApproval(requireApproval)
                .withMemberTimeoutSeconds(60)
                .withApiServerTimeoutSeconds(30))
        .acknowledgingDataLoss()
        .withEtcdVersion("");
  }

  private RestoreClusterWorkflow stub() {
    Worker worker = env.newWorker(QUEUE);
    worker.registerWorkflowImplementationTypes(RestoreClusterWorkflowImpl.class);
    recording = new RecordingActivities(hosts, cluster);
    recording.registerOn(worker);
    env.start();
    return env.getWorkflowClient()
        .newWorkflowStub(
            RestoreClusterWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(RunbookIds.changing("c"))
                .setTaskQueue(QUEUE)
                .build());
  }
}
