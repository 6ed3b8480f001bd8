package io.etcdrunbooks.workflows.maintenance;

import static io.etcdrunbooks.workflows.testing.RunbookWaits.workflowFailure;
import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.RunbookIds;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.model.MemberRef;
import io.etcdrunbooks.workflows.testing.FakeCluster;
import io.etcdrunbooks.workflows.testing.RecordingActivities;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every way Maintenance can end, on a cluster and databases in memory. MaintenanceTest in the
 * worker module runs it against a real cluster out of space.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class MaintenanceControlFlowTest {

  private static final String QUEUE = "maintenance-control-flow";
  private static final List<String> MEMBERS = List.of("m1", "m2", "m3");
  private static final long QUOTA = 64L << 20;

  private final TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance();
  private final FakeCluster cluster =
      new FakeCluster("c", MEMBERS, "3.5.16", "m1", List.of("3.5.16"));
  private FakeMaintenance databases =
      new FakeMaintenance(
          cluster,
          Map.of("m1", new long[] {64, 60}, "m2", new long[] {64, 60}, "m3", new long[] {64, 60}));
  private RecordingActivities recording;

  @AfterEach
  void close() {
    env.close();
  }

  @Test
  void aClusterOutOfSpaceIsCompactedDefragmentedLeaderLastAndItsAlarmDisarmed() {
    outOfSpace();

    MaintenanceResult result = stub().maintain(request().compactingAllBut(0));

    assertThat(result.compactedTo()).isEqualTo(10);
    assertThat(result.defragmented()).containsExactly("m2", "m3", "m1");
    assertThat(result.alarmsDisarmed()).containsExactly("m1");
    assertThat(result.after()).allSatisfy(s -> assertThat(s.sizeBytes()).isEqualTo(15L << 20));
    assertThat(recording.calls())
        .containsSubsequence(
            "HostActivities.memberFlags",
            "MaintenanceActivities.compact",
            "MaintenanceActivities.defragment",
            "MaintenanceActivities.defragment",
            "EtcdActivities.moveLeader",
            "MaintenanceActivities.defragment",
            "MaintenanceActivities.disarmNospace",
            "EtcdActivities.checkConsistency");
  }

  @Test
  void aMemberWithLittleToGiveBackIsLeftAsItIs() {
    databases =
        new FakeMaintenance(
            cluster,
            Map.of(
                "m1", new long[] {64, 10}, "m2", new long[] {64, 63}, "m3", new long[] {64, 10}));

    MaintenanceResult result = stub().maintain(request());

    assertThat(result.compactedTo()).isZero();
    assertThat(result.defragmented()).containsExactly("m3", "m1");
    assertThat(databases.defragmented()).doesNotContain("m2");
    assertThat(recording.calls()).doesNotContain("MaintenanceActivities.compact");
  }

  @Test
  void aDatabaseStillOverItsQuotaKeepsTheAlarmAndNamesSizeAndQuota() {
    // the data itself fills the quota: nothing to give back without a compaction
    databases =
        new FakeMaintenance(
            cluster,
            Map.of(
                "m1", new long[] {64, 64}, "m2", new long[] {64, 64}, "m3", new long[] {64, 64}));
    outOfSpace();

    Throwable failure = workflowFailure(() -> stub().maintain(request()));

    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.MaintenanceFailed.name());
    assertThat(Failures.rootMessage(failure))
        .contains("left the NOSPACE alarm raised", "m1's database is 64 MiB, its quota 64 MiB")
        .contains("Compact further (compactKeepRevisions)");
    assertThat(recording.calls()).doesNotContain("MaintenanceActivities.disarmNospace");
    assertThat(databases.defragmented())
        .as("out of space, every member is defragmented")
        .containsExactly("m2", "m3", "m1");
  }

  @Test
  void aMemberDownIsRefusedBeforeAnythingIsCompactedOrDefragmented() {
    cluster.stopMember(new MemberRef("c", "m3"));

    Throwable failure = workflowFailure(() -> stub().maintain(request().compactingAllBut(0)));

    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.MaintenanceRefused.name());
    assertThat(Failures.rootMessage(failure))
        .contains("member m3 is unreachable", "could cost quorum");
    assertThat(recording.calls())
        .doesNotContain("MaintenanceActivities.compact", "MaintenanceActivities.defragment");
  }

  @Test
  void aCompactionInsideKubeApiServersWindowIsRefusedNamingForceCompaction() {
    databases.apiServerCompacted(4, 8);

    Throwable failure = workflowFailure(() -> stub().maintain(request().compactingAllBut(0)));

    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.MaintenanceRefused.name());
    assertThat(Failures.rootMessage(failure))
        .contains(
            "compacting to revision 10 would cut into the history kube-apiserver still serves",
            "it compacted to 4 itself at revision 8",
            "410 Gone",
            "forceCompaction");
    assertThat(recording.calls())
        .doesNotContain("MaintenanceActivities.compact", "MaintenanceActivities.defragment");
  }

  @Test
  void withoutKubeApiServersCompactionMarkerACompactionIsRefusedAsUndated() {
    Throwable failure = workflowFailure(() -> stub().maintain(request().compactingTo(5)));

    assertThat(Failures.rootMessage(failure))
        .contains("revision 5 cannot be dated", "compact_rev_key is absent", "MaintenanceSchedule");
    assertThat(recording.calls()).doesNotContain("MaintenanceActivities.compact");
  }

  @Test
  void aCompactionNoNewerThanKubeApiServersOwnIsDone() {
    databases.apiServerCompacted(8, 10);

    assertThat(stub().maintain(request().compactingTo(6)).compactedTo()).isEqualTo(6);
  }

  @Test
  void aForcedCompactionIsDoneWithoutAskingKubeApiServer() {
    MaintenanceResult forced = stub().maintain(request().compactingAllBut(0).forcingCompaction());

    assertThat(forced.compactedTo()).isEqualTo(10);
    assertThat(recording.calls()).doesNotContain("MaintenanceActivities.apiServerCompaction");
  }

  @Test
  void aDryRunPlansWithoutCompactingOrDefragmenting() {
    MaintenanceResult result =
        stub()
            .maintain(
                MaintenanceRequest.of("c", RunbookOptions.defaults().asDryRun())
                    .compactingAllBut(0)
                    .forcingCompaction());

    assertThat(result.defragmented()).isEmpty();
    assertThat(databases.compactedTo()).isZero();
    assertThat(recording.calls())
        .doesNotContain("MaintenanceActivities.compact", "MaintenanceActivities.defragment");
  }

  private void outOfSpace() {
    cluster.alarm("NOSPACE on m1");
    for (String m : MEMBERS) cluster.startedWith(m, "--quota-backend-bytes=" + QUOTA);
  }

  private static MaintenanceRequest request() {
    return MaintenanceRequest.of("c", RunbookOptions.defaults());
  }

  private MaintenanceWorkflow stub() {
    Worker worker = env.newWorker(QUEUE);
    worker.registerWorkflowImplementationTypes(MaintenanceWorkflowImpl.class);
    recording = new RecordingActivities(databases, cluster);
    recording.registerOn(worker);
    env.start();
    return env.getWorkflowClient()
        .newWorkflowStub(
            MaintenanceWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(RunbookIds.changing("c"))
                .setTaskQueue(QUEUE)
                .build());
  }
}
