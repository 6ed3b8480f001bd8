package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.Progress;
import io.etcdrunbooks.workflows.model.MemberStatus;
import io.etcdrunbooks.workflows.upgrade.UpgradeClusterWorkflow;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowStub;
import io.temporal.failure.ApplicationFailure;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@RealEtcd
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class UpgradePauseAndQuorumTest {

  @TempDir Path dir;

  @Test
  void aPausedUpgradeWaitsBetweenMembersAndHaltsRatherThanCostQuorumWhenAMemberDiesMeanwhile()
      throws Exception {
    try (SandboxRunbooks runbooks = SandboxRunbooks.start(dir, "3.4.23", Map.of())) {
      UpgradeClusterWorkflow workflow = runbooks.upgradeStub();
      WorkflowClient.start(workflow::upgrade, runbooks.request("3.5.16"));
      workflow.pause("test");

      Progress paused = awaitPaused(workflow);
      assertThat(paused.phase()).isEqualTo(Phase.UPGRADE);
      assertThat(paused.message()).contains("paused before member", "signal resume");
      Map<String, Long> pids = runbooks.pids();
      IdleRunbook.awaitWaitingForASignal(
          runbooks.client(), UpgradeClusterWorkflow.workflowId("sandbox"));
      assertThat(runbooks.pids()).as("nothing restarted while paused").isEqualTo(pids);
      assertThat(runbooks.state().members())
          .allSatisfy(m -> assertThat(m.serverVersion()).isEqualTo("3.4.23"));

      // The step's order is fixed: followers in inventory order, the leader last. Lose the second
      // follower.
      String leader = runbooks.state().leaderName();
      List<String> followers =
          runbooks.state().members().stream()
              .map(MemberStatus::name)
              .filter(n -> !n.equals(leader))
              .toList();
      runbooks.sandbox.kill(followers.get(1));
      workflow.resume("test");

      assertThatThrownBy(
              () -> WorkflowStub.fromTyped(workflow).getResult(2, TimeUnit.MINUTES, Object.class))
          .isInstanceOf(WorkflowFailedException.class)
          .satisfies(
              e -> {
                assertThat(rootFailure(e).getType()).isEqualTo(FailureType.UpgradeHalted.name());
                assertThat(Failures.rootMessage(e))
                    .contains(
                        "halted before touching " + followers.get(0),
                        "below quorum 2",
                        followers.get(1));
              });
      assertThat(runbooks.sandbox.pidOf(followers.get(0)))
          .as("%s untouched", followers.get(0))
          .isEqualTo(pids.get(followers.get(0)));
      assertThat(runbooks.sandbox.pidOf(leader)).isEqualTo(pids.get(leader));
    }
  }

  private static Progress awaitPaused(UpgradeClusterWorkflow workflow) throws InterruptedException {
    Instant deadline = Instant.now().plus(Duration.ofMinutes(2));
    while (Instant.now().isBefore(deadline)) {
      Progress progress = workflow.progress();
      if (progress != null
          && progress.paused()
          && progress.phase() == Phase.UPGRADE
          && progress.message().contains("paused")) {
        return progress;
      }
      TimeUnit.MILLISECONDS.sleep(100);
    }
    throw new AssertionError("the upgrade never reported itself paused: " + workflow.progress());
  }

  private static ApplicationFailure rootFailure(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null) t = t.getCause();
    return (ApplicationFailure) t;
  }
}
