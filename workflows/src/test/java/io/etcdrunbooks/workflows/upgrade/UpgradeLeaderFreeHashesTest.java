package io.etcdrunbooks.workflows.upgrade;

import static io.etcdrunbooks.workflows.testing.RunbookWaits.workflowFailure;
import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.RunbookIds;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.phases.LeaderFreeHashes;
import io.etcdrunbooks.workflows.testing.FakeCluster;
import io.etcdrunbooks.workflows.testing.FakeControlPlane;
import io.etcdrunbooks.workflows.testing.RecordingActivities;
import io.temporal.client.WorkflowOptions;
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
 * On a large keyspace an upgrade hashes no member while it leads (a leader's hashkv holds every
 * write for its scan), and still compares every member before touching one.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class UpgradeLeaderFreeHashesTest {

  private static final String QUEUE = "upgrade-leader-free-hashes";
  private static final long LARGE = LeaderFreeHashes.LARGE_KEYSPACE_BYTES;

  private final TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance();
  private RecordingActivities recording;

  @AfterEach
  void close() {
    env.close();
  }

  @Test
  void givenALargeKeyspaceNoMemberIsHashedWhileItLeads() throws Exception {
    FakeCluster cluster = cluster().keyspaceOfBytes(LARGE);
    UpgradeResult result = upgrade(cluster, RunbookOptions.defaults());
    assertThat(cluster.running()).isEqualTo(Map.of("m1", "3.5.16", "m2", "3.5.16", "m3", "3.5.16"));
    assertThat(cluster.hashedWhileLeading()).isEmpty();
    assertThat(recording.calls()).doesNotContain("EtcdActivities.checkConsistency");
    // the keyspace is still shown unchanged by the hashes at the backup's revision
    assertThat(result.notes()).anyMatch(n -> n.contains("unchanged: every member's hashkv"));
    assertThat(recording.calls().stream().filter("EtcdActivities.keyspaceDigest"::equals))
        .hasSize(1);
    // the run's own history replays on today's code
    WorkflowReplayer.replayWorkflowExecution(
        env.getWorkflowClient().fetchHistory(RunbookIds.changing("c")),
        UpgradeClusterWorkflowImpl.class);
  }

  @Test
  void givenASmallKeyspaceTheLeaderIsHashedWhereItIs() {
    FakeCluster cluster = cluster().keyspaceOfBytes(LARGE - 1);
    upgrade(cluster, RunbookOptions.defaults());
    assertThat(cluster.hashedWhileLeading()).isNotEmpty();
  }

  @Test
  void givenALargeKeyspaceWhoseLeaderDisagreesItIsRefusedBeforeAnyMemberIsTouched() {
    FakeCluster cluster = cluster().keyspaceOfBytes(LARGE).hashDiffersOn("m3");
    Throwable failure = workflowFailure(() -> upgrade(cluster, RunbookOptions.defaults()));
    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.PreflightRefused.name());
    assertThat(Failures.rootMessage(failure)).contains("hashkv differs between members", "m3");
    assertThat(recording.calls())
        .doesNotContain("HostActivities.stopMember", "HostActivities.restartMember");
    assertThat(cluster.running()).isEqualTo(Map.of("m1", "3.4.23", "m2", "3.4.23", "m3", "3.4.23"));
    assertThat(cluster.hashedWhileLeading()).isEmpty();
  }

  @Test
  void givenALargeKeyspaceADryRunMovesNoLeadershipAndHashesTheLeaderWhereItIs() {
    FakeCluster cluster = cluster().keyspaceOfBytes(LARGE);
    UpgradeResult result = upgrade(cluster, RunbookOptions.defaults().asDryRun());
    assertThat(result.dryRun()).isTrue();
    assertThat(cluster.hashedWhileLeading()).containsExactly("m3");
    assertThat(recording.calls()).doesNotContain("EtcdActivities.moveLeader");
  }

  private static FakeCluster cluster() {
    return new FakeCluster("c", List.of("m1", "m2", "m3"), "3.4.23", "m3", List.of("3.5.16"));
  }

  private UpgradeResult upgrade(FakeCluster cluster, RunbookOptions options) {
    Worker worker = env.newWorker(QUEUE);
    worker.registerWorkflowImplementationTypes(UpgradeClusterWorkflowImpl.class);
    recording = new RecordingActivities(cluster, new FakeControlPlane());
    recording.registerOn(worker);
    env.start();
    return env.getWorkflowClient()
        .newWorkflowStub(
            UpgradeClusterWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(RunbookIds.changing("c"))
                .setTaskQueue(QUEUE)
                .build())
        .upgrade(UpgradeRequest.to("c", "3.5.16", options.withMemberTimeoutSeconds(60)));
  }
}
