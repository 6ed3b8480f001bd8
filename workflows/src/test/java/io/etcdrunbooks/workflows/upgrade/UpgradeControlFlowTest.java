package io.etcdrunbooks.workflows.upgrade;

import static io.etcdrunbooks.workflows.testing.RunbookWaits.awaitPhase;
import static io.etcdrunbooks.workflows.testing.RunbookWaits.workflowFailure;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.MemberDownTime;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.RunbookIds;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.EtcdMember;
import io.etcdrunbooks.workflows.model.MemberRef;
import io.etcdrunbooks.workflows.testing.FakeCluster;
import io.etcdrunbooks.workflows.testing.FakeControlPlane;
import io.etcdrunbooks.workflows.testing.FakeKubernetes;
import io.etcdrunbooks.workflows.testing.RecordingActivities;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.failure.CanceledFailure;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.WorkflowReplayer;
import io.temporal.worker.Worker;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every way an upgrade can end, on a cluster in memory (no etcd, no hosts): each runs in
 * milliseconds. The real-etcd tests in the worker module cover the same runbook against real
 * processes.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class UpgradeControlFlowTest {

  private static final String QUEUE = "upgrade-control-flow";
  private static final List<String> MEMBERS = List.of("m1", "m2", "m3");
  private static final List<String> AVAILABLE = List.of("3.4.23", "3.5.16");

  private final TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance();
  private final FakeControlPlane controlPlane = new FakeControlPlane();
  private FakeKubernetes kubernetes = new FakeKubernetes();
  private RecordingActivities recording;
  private String refusal;

  @AfterEach
  void close() {
    env.close();
  }

  @Test
  void givenAHealthyClusterItUpgradesEveryMemberLeaderLastAndPassesPostflight() throws Exception {
    FakeCluster cluster = cluster();
    UpgradeResult result = upgrade(cluster, "3.5.16");
    assertThat(cluster.running()).isEqualTo(Map.of("m1", "3.5.16", "m2", "3.5.16", "m3", "3.5.16"));
    assertThat(result.restartedMembers())
        .containsEntry("3.4.23 -> 3.5.16", List.of("m1", "m2", "m3"));
    assertThat(result.backup()).isNotNull();
    assertThat(result.keyspaceAfter()).isEqualTo(result.keyspaceBefore());
    assertThat(recording.calls())
        .containsSubsequence(
            "EtcdActivities.discover",
            "HostActivities.checkAccess",
            "BackupActivities.takeVerifiedBackup",
            "HostActivities.restartMember",
            "EtcdActivities.awaitClusterVersion");
    assertThat(cluster.staged()).containsExactlyInAnyOrder("m1@3.5.16", "m2@3.5.16", "m3@3.5.16");
    assertThat(recording.calls().indexOf("HostActivities.stageVersion"))
        .isLessThan(recording.calls().indexOf("HostActivities.restartMember"));
    assertThat(result.memberDownTimes())
        .extracting(MemberDownTime::member, MemberDownTime::version)
        .containsExactly(tuple("m1", "3.5.16"), tuple("m2", "3.5.16"), tuple("m3", "3.5.16"));
    assertThat(result.memberDownTimes()).allSatisfy(d -> assertThat(d.millis()).isPositive());
    // each member after the first is checked on the cluster its predecessor's restart read
    List<String> calls = recording.calls();
    assertThat(
            calls.subList(
                calls.indexOf("HostActivities.restartMember"),
                calls.lastIndexOf("HostActivities.restartMember")))
        .doesNotContain("EtcdActivities.discover");
    // the keyspace is read out once, beside the backup; afterwards the members' hashes show it
    assertThat(calls.stream().filter("EtcdActivities.keyspaceDigest"::equals)).hasSize(1);
    assertThat(result.notes()).anyMatch(n -> n.contains("unchanged: every member's hashkv"));
    // each member scanned by hashkv once before and once after, and one of them once more
    assertThat(cluster.hashScans()).isEqualTo(Map.of("m1", 3, "m2", 2, "m3", 2));
    assertThat(calls).doesNotContain("EtcdActivities.keyspaceHashes");
    // today's code replays the run it just made
    WorkflowReplayer.replayWorkflowExecution(
        env.getWorkflowClient().fetchHistory(RunbookIds.changing("c")),
        UpgradeClusterWorkflowImpl.class);
  }

  @Test
  void givenAKubeconfigEachFinalRungSetsKubeadmConfigsEtcdImageAndTheResultSaysSo() {
    kubernetes = new FakeKubernetes(true);
    FakeCluster cluster =
        new FakeCluster("c", MEMBERS, "3.3.25", "m3", List.of("3.3.25", "3.4.23", "3.5.16"))
            .v2Keys(0, 0);

    UpgradeResult result = upgrade(cluster, "3.5.16");

    assertThat(kubernetes.images()).containsExactly("3.4.23", "3.5.16");
    assertThat(result.notes()).contains("etcd image -> etcd:3.5.16-0");
    List<String> calls = recording.calls();
    assertThat(calls.indexOf("KubernetesActivities.setKubeadmEtcdImage"))
        .isGreaterThan(calls.indexOf("EtcdActivities.awaitClusterVersion"));
  }

  @Test
  void givenNoKubeconfigTheResultSaysWhatToSetInKubeadmConfigByHand() {
    UpgradeResult result = upgrade(cluster(), "3.5.16");

    assertThat(result.notes())
        .anyMatch(n -> n.contains("kubeadm-config of cluster 'c' not touched"));
  }

  @Test
  void givenKubeadmConfigCannotBeWrittenItFailsSayingTheUpgradeIsDoneAndWhatToSetByHand() {
    kubernetes = FakeKubernetes.refusing("PUT answered HTTP 403: forbidden");
    FakeCluster cluster = cluster();

    Throwable failure = workflowFailure(() -> upgrade(cluster, "3.5.16"));

    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.KubeadmConfigNotUpdated.name());
    assertThat(Failures.rootMessage(failure))
        .contains("every member runs 3.5.16", "HTTP 403", "kubectl -n kube-system edit cm");
    assertThat(cluster.running()).isEqualTo(Map.of("m1", "3.5.16", "m2", "3.5.16", "m3", "3.5.16"));
  }

  @Test
  void givenAPauseBetweenMembersAndAFollowerLostMeanwhileItHaltsOnAFreshRead()
      throws InterruptedException {
    FakeCluster cluster = cluster();
    UpgradeClusterWorkflow workflow = stub(cluster);
    cluster.afterRestartOf("m1", () -> workflow.pause("test"));
    WorkflowClient.start(
        workflow::upgrade,
        UpgradeRequest.to("c", "3.5.16", RunbookOptions.defaults().withMemberTimeoutSeconds(60)));
    for (int i = 0; i < 200; i++) {
      var p = workflow.progress();
      if (p.paused() && p.message().startsWith("paused before member")) break;
      Thread.sleep(50);
    }
    assertThat(workflow.progress().message()).startsWith("paused before member m2");
    cluster.stopMember(new MemberRef("c", "m3")); // lost after m1's restart read the cluster
    workflow.resume("test");

    Throwable failure =
        workflowFailure(() -> WorkflowStub.fromTyped(workflow).getResult(UpgradeResult.class));
    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.UpgradeHalted.name());
    assertThat(Failures.rootMessage(failure)).contains("halted before touching m2", "m3");
    assertThat(cluster.running()).containsEntry("m1", "3.5.16").containsEntry("m2", "3.4.23");
  }

  @Test
  void givenAPauseBeforeTheFirstMemberAndAFollowerLostMeanwhileItHaltsOnAFreshReadOfTheCluster()
      throws InterruptedException {
    FakeCluster cluster = cluster();
    UpgradeClusterWorkflow workflow = stub(cluster);
    WorkflowClient.start(
        workflow::upgrade,
        UpgradeRequest.to("c", "3.5.16", RunbookOptions.defaults().withMemberTimeoutSeconds(60)));
    workflow.pause("test");
    for (int i = 0; i < 200; i++) {
      var p = workflow.progress();
      if (p.paused() && p.message().startsWith("paused before member")) break;
      Thread.sleep(50);
    }
    assertThat(workflow.progress().message()).startsWith("paused before member m1");
    cluster.stopMember(new MemberRef("c", "m2")); // lost while the runbook is paused
    workflow.resume("test");

    Throwable failure =
        workflowFailure(() -> WorkflowStub.fromTyped(workflow).getResult(UpgradeResult.class));
    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.UpgradeHalted.name());
    assertThat(Failures.rootMessage(failure)).contains("halted before touching m1", "m2");
    assertThat(recording.calls()).doesNotContain("HostActivities.restartMember");
  }

  @Test
  void givenTheLeaderRestartedLastItGetsLeadershipBackBeforeTheClusterVersionWait() {
    FakeCluster cluster = cluster();
    String leader = cluster.discover(new ClusterRef("c")).leaderName();
    upgrade(cluster, "3.5.16");
    assertThat(cluster.discover(new ClusterRef("c")).leaderName()).isEqualTo(leader);
    List<String> calls = recording.calls();
    assertThat(calls.stream().filter("EtcdActivities.moveLeader"::equals)).hasSize(2);
    assertThat(calls.lastIndexOf("EtcdActivities.moveLeader"))
        .isGreaterThan(calls.lastIndexOf("HostActivities.restartMember"))
        .isLessThan(calls.indexOf("EtcdActivities.awaitClusterVersion"));
  }

  @Test
  void givenAWatchThatFailsForAnotherReasonTheReadinessWaitDecidesAndTheUpgradeGoesOn() {
    FakeCluster cluster = cluster().watchUnreachable();
    UpgradeResult result = upgrade(cluster, "3.5.16");
    assertThat(cluster.running()).isEqualTo(Map.of("m1", "3.5.16", "m2", "3.5.16", "m3", "3.5.16"));
    assertThat(result.memberDownTimes()).hasSize(3);
  }

  @Test
  void givenAMemberWhoseEtcdExitsRightAfterItsStartTheWatchFailsItBeforeItsReadinessTimesOut() {
    FakeCluster cluster = cluster().exitsOnStart("m2", "3.5.16");
    Throwable failure = workflowFailure(() -> upgrade(cluster, "3.5.16"));
    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.UpgradeRolledBack.name());
    assertThat(Failures.rootMessage(failure)).contains("m2", "exited right after it was started");
    assertThat(cluster.running()).containsEntry("m1", "3.4.23").containsEntry("m2", "3.4.23");
  }

  @Test
  void givenADryRunItPlansAndTouchesNothing() {
    UpgradeResult result =
        stub(cluster())
            .upgrade(
                UpgradeRequest.to(
                    "c",
                    "3.5.16",
                    RunbookOptions.defaults().asDryRun().withMemberTimeoutSeconds(60)));
    assertThat(result.dryRun()).isTrue();
    assertThat(result.plan().steps())
        .extracting(LadderStep::label)
        .containsExactly("3.4.23 -> 3.5.16");
    assertThat(result.plan().steps().get(0).memberOrder()).containsExactly("m1", "m2", "m3");
    assertThat(recording.calls())
        .doesNotContain("HostActivities.stopMember", "BackupActivities.takeVerifiedBackup");
  }

  @Test
  void givenAHostItCannotTrustItRefusesBeforeTheBackupNamingTheHost() {
    FakeCluster cluster =
        cluster().hostProblems("member m3 (127.0.0.1:22): host key does not match known_hosts");
    assertRefusedTouchingNothing(
        () -> upgrade(cluster, "3.5.16"),
        "refused, nothing was touched",
        "member m3 (127.0.0.1:22)");
  }

  @Test
  void givenTheTargetIsRunningItRefusesNamingIt() {
    assertRefusedTouchingNothing(() -> upgrade(cluster(), "3.4.23"), "already runs 3.4.23");
  }

  @Test
  void givenATargetOlderThanA3_6ClusterItRefusesNamingDowngradeClusterNotARollback() {
    FakeCluster on36 =
        new FakeCluster("c", MEMBERS, "3.6.16", "m3", List.of("3.5.35", "3.6.16", "3.7.3"));
    assertRefusedTouchingNothing(
        () -> upgrade(on36, "3.5.35"),
        "target 3.5.35 is older than the running 3.6.16",
        "DowngradeCluster runbook",
        "POST /api/v1/clusters/c/downgrade with {\"toVersion\": \"3.5.35\"}",
        "docs/temporal-cli.md");
    assertThat(refusal).doesNotContain("rollback");
  }

  @Test
  void givenATargetTwoMinorsBelowA3_7ClusterItNamesDowngradeClusterToTheMinorBetweenFirst() {
    FakeCluster on37 =
        new FakeCluster("c", MEMBERS, "3.7.3", "m3", List.of("3.5.35", "3.6.16", "3.7.3"));
    assertRefusedTouchingNothing(
        () -> upgrade(on37, "3.5.35"),
        "DowngradeCluster runbook to 3.6 first (then again, down to 3.5.35)",
        "{\"toVersion\": \"3.6.x\"}");
  }

  @Test
  void givenATargetOlderThanA3_5ClusterItRefusesNamingTheRollback() {
    assertRefusedTouchingNothing(
        () -> upgrade(cluster(), "3.3.25"),
        "target 3.3.25 is older than the running 3.4.23",
        "POST /api/v1/clusters/c/rollback goes back");
  }

  @Test
  void givenAuthenticationIsOnARollingUpgradeFrom3_4To3_5IsRefusedWithTheRemedy() {
    assertRefusedTouchingNothing(
        () -> upgrade(cluster().authEnabled(), "3.5.16"),
        "authentication is on",
        "3.4 to 3.5",
        "etcdctl auth disable");
  }

  @Test
  void givenV2DataOn3_3AnUpgradeInto3_4IsRefusedNamingTheKeysAndTheMigration() {
    FakeCluster cluster =
        new FakeCluster("c", MEMBERS, "3.3.25", "m3", List.of("3.3.25", "3.4.23", "3.5.16"))
            .v2Keys(1200, 200);
    assertRefusedTouchingNothing(
        () -> upgrade(cluster, "3.5.16"),
        "holds 1200 keys in the v2 store (200 with a TTL",
        "Migrate them to v3 first");
  }

  @Test
  void givenAKubeApiServerOnEtcd2AnUpgradeInto3_4IsRefusedEvenWithAnEmptyV2Store() {
    controlPlane.host("cp1", "etcd3").host("cp2", "etcd2");
    FakeCluster cluster =
        new FakeCluster("c", MEMBERS, "3.3.25", "m3", List.of("3.3.25", "3.4.23")).v2Keys(0, 0);
    assertRefusedTouchingNothing(
        () -> upgrade(cluster, "3.4.23"),
        "kube-apiserver on cp2 reads etcd2 (--storage-backend=etcd2)",
        "Run the MigrateV2ToV3 runbook first");
  }

  @Test
  void givenAnEmptyV2StoreTheUpgradeGoesOn() {
    controlPlane.host("cp1", "etcd3").host("cp2", "");
    FakeCluster cluster =
        new FakeCluster("c", MEMBERS, "3.3.25", "m3", List.of("3.3.25", "3.4.23")).v2Keys(0, 0);
    upgrade(cluster, "3.4.23");
    assertThat(cluster.running())
        .containsOnly(
            Map.entry("m1", "3.4.23"), Map.entry("m2", "3.4.23"), Map.entry("m3", "3.4.23"));
  }

  @Test
  void givenAMemberStartedWithAFlagTheTargetRemovedItRefusesNamingMemberAndFlag() {
    FakeCluster cluster = cluster().startedWith("m2", "--name=m2", "--log-package-levels=x");
    assertRefusedTouchingNothing(
        () -> upgrade(cluster, "3.5.16"),
        "member m2 runs with --log-package-levels, which etcd 3.5 no longer accepts");
    assertThat(recording.calls()).contains("HostActivities.memberFlags");
  }

  @Test
  void givenAFlagTheTargetsHelpDoesNotListItRefusesNamingMemberFlagAndVersion() {
    FakeCluster cluster =
        cluster().startedWith("m1", "--name=m1", "--some-vendor-flag=1", "--log-level=info");
    assertRefusedTouchingNothing(
        () -> upgrade(cluster, "3.5.16"),
        "member m1 runs with --some-vendor-flag, which etcd 3.5.16 does not list in its --help");
    assertThat(recording.calls()).contains("ReleaseActivities.flagsOf");
  }

  @Test
  void givenAMemberStartedWithARenamedFlagItIsTranslatedAfterTheMemberStopsAndBeforeItStarts() {
    FakeCluster cluster = cluster().startedWith("m2", "--name=m2", "--debug");
    upgrade(cluster, "3.5.16");
    assertThat(cluster.memberFlags(new MemberRef("c", "m2")).args())
        .containsExactly("--name=m2", "--log-level=debug");
    assertThat(recording.calls())
        .containsSubsequence("HostActivities.translateFlags", "HostActivities.restartMember");
  }

  @Test
  void givenATargetWithTheKnownDataInconsistencyItRefusesNamingTheFixedRelease() {
    FakeCluster cluster = new FakeCluster("c", MEMBERS, "3.4.23", "m3", List.of("3.4.23", "3.5.2"));
    assertRefusedTouchingNothing(
        () -> upgrade(cluster, "3.5.2"), "etcd 3.5.2 is not a version to run", "3.5.3");
  }

  @Test
  void givenTheClusterVersionMovesWhileMembersArePutBackItStopsThereAndNamesTheRestore() {
    FakeCluster cluster =
        cluster()
            .installFails((member, version) -> member.equals("m2") && version.equals("3.5.16"))
            .clusterVersionOnceInstalled("m2", "3.4.23", "3.5.0");
    Throwable failure = workflowFailure(() -> upgrade(cluster, "3.5.16"));
    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.UpgradeRollbackFailed.name());
    assertThat(Failures.rootMessage(failure))
        .contains(
            "the cluster version moved to 3.5.0 while members were put back, so m1 cannot go back to 3.4.23",
            "Rolled back before that: [m2]",
            "backup pre-upgrade-");
    assertThat(cluster.running()).containsEntry("m1", "3.5.16").containsEntry("m2", "3.4.23");
  }

  @Test
  void givenAnotherMemberFailsMidwayItHaltsLeavingTheMixedClusterAsItIs() {
    FakeCluster cluster = cluster().whenStarted("m1", "m3");
    Throwable failure = workflowFailure(() -> upgrade(cluster, "3.5.16"));
    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.UpgradeHalted.name());
    assertThat(Failures.rootMessage(failure))
        .contains("halted before touching m2", "Members already on 3.5.16: [m1]");
    assertThat(cluster.running()).containsEntry("m1", "3.5.16").containsEntry("m2", "3.4.23");
  }

  @Test
  void givenAMemberFailsAndPuttingItBackFailsTooItEndsRollbackFailedNamingTheBackup() {
    FakeCluster cluster = cluster().installFails((member, version) -> member.equals("m2"));
    Throwable failure = workflowFailure(() -> upgrade(cluster, "3.5.16"));
    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.UpgradeRollbackFailed.name());
    assertThat(Failures.rootMessage(failure))
        .contains("failed at member m2", "Putting 3.4.23 back failed too", "backup pre-upgrade-");
  }

  @Test
  void givenTheClusterVersionMovedBeforeAMemberFailedItPutsNothingBackAndNamesTheRestore() {
    FakeCluster cluster =
        cluster().clusterVersion("3.5.0").installFails((member, version) -> member.equals("m2"));
    Throwable failure = workflowFailure(() -> upgrade(cluster, "3.5.16"));
    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.UpgradeRollbackFailed.name());
    assertThat(Failures.rootMessage(failure))
        .contains("has already moved to 3.5.0", "restore runbook");
    assertThat(cluster.running()).containsEntry("m1", "3.5.16");
  }

  @Test
  void
      givenTheLastMemberIsNotReadyAfterTheClusterVersionMovedItEndsUpgradedNamingTheDegradedMember() {
    FakeCluster cluster = cluster().notReadyOn("m3", "3.5.16");
    Throwable failure = workflowFailure(() -> upgrade(cluster, "3.5.16"));
    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.UpgradedMemberDegraded.name());
    assertThat(Failures.rootMessage(failure))
        .contains(
            "the cluster is upgraded (cluster version 3.5.0, every other member healthy on 3.5.16)",
            "member m3 is degraded: m3 did not catch up",
            "Do not restore",
            "ReplaceMember")
        .doesNotContain("restoring backup");
    assertThat(cluster.running())
        .containsOnly(
            Map.entry("m1", "3.5.16"), Map.entry("m2", "3.5.16"), Map.entry("m3", "3.5.16"));
  }

  @Test
  void givenAMemberWhoseHashDiffersItIsRefusedTouchingNothing() {
    FakeCluster cluster = cluster().hashDiffersOn("m2");
    assertRefusedTouchingNothing(
        () -> upgrade(cluster, "3.5.16"), "hashkv differs between members", "m2");
  }

  @Test
  void givenTheKeyspaceChangedThePostflightFails() {
    FakeCluster cluster = cluster().keyspaceChanges();
    Throwable failure = workflowFailure(() -> upgrade(cluster, "3.5.16"));
    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.PostflightFailed.name());
    assertThat(Failures.rootMessage(failure))
        .contains("finished but postflight found", "changed during the upgrade");
    // hashes that differ send the postflight to read the keyspace out again
    assertThat(recording.calls().stream().filter("EtcdActivities.keyspaceDigest"::equals))
        .hasSize(2);
  }

  @Test
  void givenHashesThatCannotBeReadTheUpgradeGoesOnAndThePostflightReadsTheKeyspaceOutAgain() {
    FakeCluster cluster = cluster().hashesFail();
    UpgradeResult result = upgrade(cluster, "3.5.16");
    assertThat(cluster.running()).isEqualTo(Map.of("m1", "3.5.16", "m2", "3.5.16", "m3", "3.5.16"));
    assertThat(result.keyspaceAfter()).isEqualTo(result.keyspaceBefore());
    assertThat(recording.calls().stream().filter("EtcdActivities.keyspaceDigest"::equals))
        .hasSize(2);
    assertThat(result.notes()).noneMatch(n -> n.contains("every member's hashkv"));
  }

  @Test
  void givenRequireApprovalItWaitsThenGoesOnOnceApproved() {
    FakeCluster cluster = cluster();
    UpgradeClusterWorkflow upgrade = stub(cluster);
    WorkflowClient.start(
        upgrade::upgrade,
        UpgradeRequest.to(
            "c", "3.5.16", RunbookOptions.defaults().withApproval().withMemberTimeoutSeconds(60)));
    awaitPhase(env, upgrade, Phase.AWAITING_APPROVAL);
    assertThat(recording.calls()).doesNotContain("BackupActivities.takeVerifiedBackup");
    upgrade.approve("on-call");
    WorkflowStub.fromTyped(upgrade).getResult(UpgradeResult.class);
    assertThat(cluster.running()).containsEntry("m3", "3.5.16");
  }

  @Test
  void givenAnApprovalLongAfterDiscoveryTheKeyspaceIsReadAtARevisionReadAfterIt() {
    FakeCluster cluster = cluster().revisionGrowsBy(100);
    UpgradeClusterWorkflow upgrade = stub(cluster);
    WorkflowClient.start(
        upgrade::upgrade,
        UpgradeRequest.to(
            "c", "3.5.16", RunbookOptions.defaults().withApproval().withMemberTimeoutSeconds(60)));
    awaitPhase(env, upgrade, Phase.AWAITING_APPROVAL);
    long discovered = 10; // the first discovery's revision
    env.sleep(java.time.Duration.ofMinutes(10));
    cluster.compactedBelow(discovered + 1); // kube-apiserver compacted meanwhile
    upgrade.approve("on-call");
    UpgradeResult result = WorkflowStub.fromTyped(upgrade).getResult(UpgradeResult.class);
    assertThat(result.keyspaceBefore().revision()).isGreaterThan(discovered);
    assertThat(result.notes()).anyMatch(n -> n.contains("unchanged: every member's hashkv"));
  }

  @Test
  void givenTheKeyspaceCompactedPastTheDiscoveredRevisionItIsReadAtTheBackupsRevision() {
    // discovery reads revision 10, the backup is taken at 11
    FakeCluster cluster = cluster().revisionGrowsBy(1).compactedBelow(11);
    UpgradeResult result = upgrade(cluster, "3.5.16");
    assertThat(result.keyspaceBefore().revision()).isEqualTo(result.backup().revision());
    assertThat(result.keyspaceAfter()).isEqualTo(result.keyspaceBefore());
    assertThat(cluster.running()).containsEntry("m3", "3.5.16");
  }

  @Test
  void givenACancelWhileAwaitingApprovalItStopsHavingTouchedNothing() {
    FakeCluster cluster = cluster();
    UpgradeClusterWorkflow upgrade = stub(cluster);
    WorkflowClient.start(
        upgrade::upgrade,
        UpgradeRequest.to(
            "c", "3.5.16", RunbookOptions.defaults().withApproval().withMemberTimeoutSeconds(60)));
    awaitPhase(env, upgrade, Phase.AWAITING_APPROVAL);
    WorkflowStub.fromTyped(upgrade).cancel();
    Throwable failure =
        workflowFailure(() -> WorkflowStub.fromTyped(upgrade).getResult(UpgradeResult.class));
    assertThat(failure).hasRootCauseInstanceOf(CanceledFailure.class);
    assertThat(recording.calls())
        .doesNotContain("HostActivities.stopMember", "BackupActivities.takeVerifiedBackup");
    assertThat(cluster.running()).isEqualTo(Map.of("m1", "3.4.23", "m2", "3.4.23", "m3", "3.4.23"));
  }

  @Test
  void givenALeftoverLearnerEtcdListsItRefusesBeforeAnythingNamingTheFixingReleases() {
    FakeCluster cluster =
        cluster()
            .listsBeyondInventory(
                new EtcdMember(0xabc, "", List.of("http://10.0.0.9:2380"), List.of(), true));
    assertRefusedTouchingNothing(
        () -> upgrade(cluster, "3.5.16"),
        "etcd lists learner a member never started (id abc",
        "#19557, fixed in 3.5.20",
        "#20793",
        "etcdctl member remove abc");
  }

  @Test
  void givenARemovedMemberThatReappearedItRefusesNamingZombieMembersAndTheirFix() {
    FakeCluster cluster =
        cluster()
            .listsBeyondInventory(
                new EtcdMember(0xdef, "old-m4", List.of("http://10.0.0.4:2380"), List.of(), false));
    assertRefusedTouchingNothing(
        () -> upgrade(cluster, "3.5.16"),
        "etcd lists member old-m4 (id def",
        "zombie members",
        "fixed in 3.5.26",
        "#20995");
  }

  /**
   * The plan is made from what the members reported at discovery; a member put back on 3.5.30 by
   * hand after the 3.5.35 rung is seen by the 3.6 rung's own reading and stops it before it touches
   * a member.
   */
  @Test
  void givenAMemberBackOn3_5_30AfterThePatchRungThe3_6RungIsHaltedBeforeItsFirstMember() {
    FakeCluster cluster =
        new FakeCluster("c", MEMBERS, "3.5.30", "m3", List.of("3.5.30", "3.5.35", "3.6.16"));
    cluster.afterRestartOf("m3", () -> cluster.runsByHand("m1", "3.5.30"));
    Throwable failure = workflowFailure(() -> upgrade(cluster, "3.6.16"));
    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.UpgradeHalted.name());
    assertThat(Failures.rootMessage(failure))
        .contains(
            "halted before 3.5.35 -> 3.6.16, no member of it touched",
            "member m1 reports etcd 3.5.30",
            "3.5.32 or later");
    assertThat(cluster.running()).isEqualTo(Map.of("m1", "3.5.30", "m2", "3.5.35", "m3", "3.5.35"));
  }

  private static FakeCluster cluster() {
    return new FakeCluster("c", MEMBERS, "3.4.23", "m3", AVAILABLE);
  }

  private UpgradeResult upgrade(FakeCluster cluster, String target) {
    return stub(cluster)
        .upgrade(
            UpgradeRequest.to("c", target, RunbookOptions.defaults().withMemberTimeoutSeconds(60)));
  }

  /** Refused in PREFLIGHT, naming each of {@code words}: no backup taken, no member stopped. */
  private void assertRefusedTouchingNothing(Runnable upgrade, String... words) {
    Throwable failure = workflowFailure(upgrade);
    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.PreflightRefused.name());
    refusal = Failures.rootMessage(failure);
    assertThat(refusal).contains(words);
    assertThat(recording.calls())
        .doesNotContain("BackupActivities.takeVerifiedBackup", "HostActivities.stopMember");
  }

  private UpgradeClusterWorkflow stub(FakeCluster cluster) {
    Worker worker = env.newWorker(QUEUE);
    worker.registerWorkflowImplementationTypes(UpgradeClusterWorkflowImpl.class);
    recording = new RecordingActivities(cluster, controlPlane, kubernetes);
    recording.registerOn(worker);
    env.start();
    return env.getWorkflowClient()
        .newWorkflowStub(
            UpgradeClusterWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(RunbookIds.changing("c"))
                .setTaskQueue(QUEUE)
                .build());
  }
}
