package io.etcdrunbooks.workflows.migrate;

import static io.etcdrunbooks.workflows.testing.RunbookWaits.workflowFailure;
import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.RunbookIds;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.testing.FakeCluster;
import io.etcdrunbooks.workflows.testing.HistoryExport;
import io.etcdrunbooks.workflows.testing.RecordingActivities;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

/**
 * Every way a v2 -> v3 migration can end, on a cluster, hosts and stores in memory: each runs in
 * milliseconds. MigrateV2ToV3Test in the worker module runs the same runbook against real etcd
 * 3.3.25 processes.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class MigrateControlFlowTest {

  private static final String QUEUE = "migrate-control-flow";
  private static final List<String> MEMBERS = List.of("m1", "m2", "m3");
  private static final List<String> CONTROL_PLANE = List.of("cp1", "cp2", "cp3");
  private static final Map<String, String> ALL_ON_V2 =
      Map.of("cp1", "etcd2", "cp2", "etcd2", "cp3", "etcd2");

  private final TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance();
  private final FakeCluster cluster =
      new FakeCluster("c", MEMBERS, "3.3.25", "m1", List.of("3.3.25"));
  private final FakeMigration hosts = new FakeMigration(MEMBERS, CONTROL_PLANE);
  private RecordingActivities recording;
  private String testName;

  @BeforeEach
  void name(TestInfo info) {
    testName = info.getTestMethod().orElseThrow().getName();
  }

  @AfterEach
  void close() {
    HistoryExport.ifAsked(env, RunbookIds.changing("c"), "migrate-in-memory-" + testName);
    env.close();
  }

  @Test
  void itStopsTheApiServersAndMembersMigratesTheFirstAndGivesItsV3StoreToTheOthersThenSwitches() {
    MigrateResult result = stub().migrate(request(false));

    assertThat(hosts.migrated()).containsExactly("m1");
    assertThat(hosts.copiedFrom()).isEqualTo(Map.of("m2", "m1", "m3", "m1"));
    assertThat(hosts.stoppedApiServers()).isEmpty();
    assertThat(hosts.backends()).containsOnlyKeys(CONTROL_PLANE).containsValue("etcd3");
    assertThat(hosts.backends().values()).containsOnly("etcd3");
    assertThat(hosts.cleared()).isTrue();
    assertThat(hosts.putBack()).isEmpty();
    assertThat(result.apiServersSwitched()).containsExactlyElementsOf(CONTROL_PLANE);
    assertThat(result.dataDirCopies())
        .containsEntry("m2", "/var/lib/etcd-m2.before-migrate-" + result.migrationId());
    assertThat(result.v2Keys()).isEqualTo(1200);
    assertThat(result.v3KeysAfter()).isEqualTo(1200);
    assertThat(result.leases().keysLeased()).isEqualTo(200);
    assertThat(result.v2KeysCleared()).isEqualTo(1200);
    assertThat(recording.calls())
        .containsSubsequence(
            "EtcdActivities.discover",
            "MigrationActivities.survey",
            "ApiServerActivities.storageBackend",
            "HostActivities.checkAccess",
            "ApiServerActivities.stopApiServer",
            "HostActivities.stopMember",
            "MigrationActivities.copyDataDir",
            "MigrationActivities.migrateMember",
            "MigrationActivities.copyV3Store",
            "MigrationActivities.copyV3Store",
            "HostActivities.startMember",
            "EtcdActivities.awaitMemberReady",
            "MigrationActivities.attachLeases",
            "EtcdActivities.checkConsistency",
            "MigrationActivities.compare",
            "ApiServerActivities.setStorageBackend",
            "ApiServerActivities.startApiServer",
            "ApiServerActivities.awaitHealthy",
            "MigrationActivities.clearV2");
  }

  @Test
  void aDryRunSurveysAndPlansAndStopsNothing() {
    MigrateResult result = stub().migrate(request(true));

    assertThat(result.dryRun()).isTrue();
    assertThat(result.v2Keys()).isEqualTo(1200);
    assertThat(recording.calls())
        .doesNotContain(
            "ApiServerActivities.stopApiServer",
            "HostActivities.stopMember",
            "MigrationActivities.migrateMember");
  }

  @Test
  void keysAlreadyInV3AnApiServerOnEtcd3AndAnEmptyV2StoreAreRefusedTogetherTouchingNothing() {
    hosts.v3Holds(5).v2Holds(0).backend("cp2", "");

    Throwable failure = workflowFailure(() -> stub().migrate(request(false)));

    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.MigrationRefused.name());
    assertThat(Failures.rootMessage(failure))
        .contains(
            "refused, nothing was touched",
            "the v2 store holds no keys",
            "the v3 store already holds 5 keys (revision 6)",
            "kube-apiserver on cp2 reads etcd3 (no --storage-backend flag)");
    assertThat(recording.calls()).doesNotContain("ApiServerActivities.stopApiServer");
  }

  @Test
  void everyStoreCallIsScopedToTheApiServersEtcdPrefixAsTheyWriteIt() {
    CONTROL_PLANE.forEach(h -> hosts.etcdPrefix(h, "k8s/registry/"));

    stub().migrate(request(false));

    assertThat(hosts.scopes())
        .hasSize(4)
        .allSatisfy(scope -> assertThat(scope.etcdPrefix()).isEqualTo("/k8s/registry"));
  }

  @Test
  void apiServersThatDisagreeOnTheEtcdPrefixAreRefusedNamingEachTouchingNothing() {
    hosts.etcdPrefix("cp2", "/other");

    Throwable failure = workflowFailure(() -> stub().migrate(request(false)));

    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.MigrationRefused.name());
    assertThat(Failures.rootMessage(failure))
        .contains(
            "the kube-apiservers disagree on --etcd-prefix"
                + " ({cp1=/registry, cp2=/other, cp3=/registry})");
    assertThat(recording.calls()).doesNotContain("ApiServerActivities.stopApiServer");
  }

  @Test
  void membersOnEtcd35AreRefusedSinceItHasNoMigrateTool() {
    FakeCluster newer = new FakeCluster("c", MEMBERS, "3.5.16", "m1", List.of("3.5.16"));

    Throwable failure = workflowFailure(() -> stub(newer).migrate(request(false)));

    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.MigrationRefused.name());
    assertThat(Failures.rootMessage(failure))
        .contains("member m1 runs etcd 3.5.16, which has no v2 store to migrate from");
  }

  @Test
  void aFailureToGiveTheSecondMemberTheV3StorePutsBothCopiesBackAndStartsEverythingOnV2() {
    hosts.migrateFails("m2");

    Throwable failure = workflowFailure(() -> stub().migrate(request(false)));

    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.MigrationRolledBack.name());
    assertThat(Failures.rootMessage(failure))
        .contains(
            "stopped in phase MIGRATE: cannot put the v3 store of m1 in place on m2",
            "The cluster is back on v2",
            "Next: fix the cause, then run the migration again");
    assertThat(hosts.putBack()).containsExactly("m2", "m1");
    assertThat(cluster.running()).isEqualTo(Map.of("m1", "3.3.25", "m2", "3.3.25", "m3", "3.3.25"));
    assertThat(hosts.stoppedApiServers()).isEmpty();
    assertThat(hosts.backends()).isEqualTo(ALL_ON_V2);
    assertThat(hosts.cleared()).isFalse();
  }

  @Test
  void aComparisonThatFindsAMissingKeyStopsTheMembersAndPutsEveryCopyBack() {
    hosts.comparisonFinds("key /registry/pods/p7 is in v2 but not in v3");

    Throwable failure = workflowFailure(() -> stub().migrate(request(false)));

    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.MigrationRolledBack.name());
    assertThat(Failures.rootMessage(failure))
        .contains("stopped in phase POSTFLIGHT", "key /registry/pods/p7 is in v2 but not in v3");
    assertThat(hosts.putBack()).containsExactly("m3", "m2", "m1");
    assertThat(recording.calls())
        .containsSubsequence(
            "MigrationActivities.compare",
            "HostActivities.stopMember",
            "MigrationActivities.putDataDirBack",
            "HostActivities.startMember",
            "ApiServerActivities.startApiServer");
    assertThat(hosts.stoppedApiServers()).isEmpty();
    assertThat(hosts.backends()).isEqualTo(ALL_ON_V2);
  }

  @Test
  void theFirstApiServerUnhealthyOnEtcd3GoesBackToEtcd2WithTheRestOfTheCluster() {
    hosts.unhealthyOnV3("cp1");

    Throwable failure = workflowFailure(() -> stub().migrate(request(false)));

    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.MigrationRolledBack.name());
    assertThat(Failures.rootMessage(failure)).contains("stopped in phase APISERVERS");
    assertThat(hosts.backends()).isEqualTo(ALL_ON_V2);
    assertThat(hosts.stoppedApiServers()).isEmpty();
    assertThat(hosts.putBack()).containsExactly("m3", "m2", "m1");
  }

  @Test
  void anApiServerUnhealthyAfterAnotherReadsEtcd3EndsFailedNamingWhatIsLeftAndPutsNothingBack() {
    hosts.unhealthyOnV3("cp2");

    Throwable failure = workflowFailure(() -> stub().migrate(request(false)));

    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.MigrationFailed.name());
    assertThat(Failures.rootMessage(failure))
        .contains(
            "kube-apiservers already reading v3: [cp1]",
            "still stopped: [cp2, cp3]",
            "set --storage-backend=etcd3");
    assertThat(hosts.putBack()).isEmpty();
    assertThat(hosts.cleared()).isFalse();
  }

  private static MigrateRequest request(boolean dryRun) {
    return MigrateRequest.of(
        "c",
        RunbookOptions.defaults()
            .withDryRun(dryRun)
            .withMemberTimeoutSeconds(60)
            .withApiServerTimeoutSeconds(30));
  }

  private MigrateV2ToV3Workflow stub() {
    return stub(cluster);
  }

  private MigrateV2ToV3Workflow stub(FakeCluster etcd) {
    Worker worker = env.newWorker(QUEUE);
    worker.registerWorkflowImplementationTypes(MigrateV2ToV3WorkflowImpl.class);
    recording = new RecordingActivities(hosts, etcd);
    recording.registerOn(worker);
    env.start();
    return env.getWorkflowClient()
        .newWorkflowStub(
            MigrateV2ToV3Workflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(RunbookIds.changing("c"))
                .setTaskQueue(QUEUE)
                .build());
  }
}
