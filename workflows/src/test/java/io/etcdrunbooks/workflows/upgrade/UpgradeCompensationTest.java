package io.etcdrunbooks.workflows.upgrade;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.RunbookIds;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.testing.FakeCluster;
import io.etcdrunbooks.workflows.testing.HistoryExport;
import io.etcdrunbooks.workflows.testing.RecordingActivities;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

/**
 * What an upgrade's compensation says it rolled back, on a cluster in memory: only the members it
 * switched back, and the failed member apart when it never left the old version.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class UpgradeCompensationTest {

  private static final String QUEUE = "compensation";
  private static final List<String> MEMBERS = List.of("m1", "m2", "m3");
  private static final List<String> AVAILABLE = List.of("3.4.23", "3.5.16");

  private final TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance();

  @AfterEach
  void close(TestInfo test) {
    HistoryExport.ifAsked(
        env,
        RunbookIds.changing("c"),
        "upgrade-in-memory-" + test.getTestMethod().orElseThrow().getName());
    env.close();
  }

  @Test
  void
      givenTheLeaderCannotHandOverWhenItsTurnComesTheFollowersAreRolledBackAndTheLeaderIsNamedAsLeftAsItWas() {
    FakeCluster cluster =
        new FakeCluster("c", MEMBERS, "3.4.23", "m3", AVAILABLE).moveLeaderFails();

    String message = failedUpgrade(cluster);

    assertThat(message)
        .contains(
            "failed at member m3",
            "Rolled back [m2, m1] to 3.4.23.", // newest first: the saga undoes in reverse
            "m3 was still healthy on 3.4.23 and was left as it was.");
    assertThat(message).doesNotContain("Rolled back [m3");
    assertThat(cluster.running()).isEqualTo(Map.of("m1", "3.4.23", "m2", "3.4.23", "m3", "3.4.23"));
  }

  @Test
  void givenAFollowerStoppedAndFailedToInstallItIsRolledBackWithTheOthers() {
    FakeCluster cluster =
        new FakeCluster("c", MEMBERS, "3.4.23", "m3", AVAILABLE)
            .installFails((member, version) -> member.equals("m2") && version.equals("3.5.16"));

    String message = failedUpgrade(cluster);

    assertThat(message)
        .contains("failed at member m2", "Rolled back [m2, m1] to 3.4.23.")
        .doesNotContain("left as it was");
    assertThat(cluster.running()).isEqualTo(Map.of("m1", "3.4.23", "m2", "3.4.23", "m3", "3.4.23"));
  }

  @Test
  void theSentenceSaysWhenNoMemberNeededRollingBack() {
    assertThat(UpgradeCompensation.rolledBackSentence("m1", "3.4.23", List.of()))
        .isEqualTo(
            "No member had to be rolled back. m1 was still healthy on 3.4.23 and was left as it was.");
  }

  private String failedUpgrade(FakeCluster cluster) {
    Worker worker = env.newWorker(QUEUE);
    worker.registerWorkflowImplementationTypes(UpgradeClusterWorkflowImpl.class);
    new RecordingActivities(cluster).registerOn(worker);
    env.start();
    UpgradeClusterWorkflow upgrade =
        env.getWorkflowClient()
            .newWorkflowStub(
                UpgradeClusterWorkflow.class,
                WorkflowOptions.newBuilder()
                    .setWorkflowId(RunbookIds.changing("c"))
                    .setTaskQueue(QUEUE)
                    .build());
    Throwable[] failure = new Throwable[1];
    assertThatThrownBy(
            () ->
                upgrade.upgrade(
                    UpgradeRequest.to(
                        "c", "3.5.16", RunbookOptions.defaults().withMemberTimeoutSeconds(60))))
        .isInstanceOf(WorkflowFailedException.class)
        .satisfies(e -> failure[0] = e);
    assertThat(Failures.rootType(failure[0])).isEqualTo(FailureType.UpgradeRolledBack.name());
    return Failures.rootMessage(failure[0]);
  }
}
