package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.workflows.common.CompletedStep;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.Progress;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.rollback.RollbackClusterWorkflow;
import io.etcdrunbooks.workflows.rollback.RollbackRequest;
import io.etcdrunbooks.workflows.rollback.RollbackResult;
import io.etcdrunbooks.workflows.upgrade.UpgradeClusterWorkflow;
import io.etcdrunbooks.workflows.upgrade.UpgradeResult;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

@RealEtcd
@Execution(ExecutionMode.CONCURRENT)
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class RollbackClusterTest {

  @TempDir Path dir;

  @Test
  void aClusterWithOneOfThreeMembersUpgradedGoesBackToTheOldVersionWithEveryKey() throws Exception {
    try (SandboxRunbooks runbooks = SandboxRunbooks.start(dir, "3.4.23", Map.of());
        ClusterProbe probe = new ClusterProbe(runbooks.sandbox.cluster())) {
      probe.putManyUnordered("/registry/deployments/d-", 200);
      String follower =
          runbooks.state().members().stream()
              .filter(m -> !m.leads())
              .findFirst()
              .orElseThrow()
              .name();
      runbooks.upgradeOneMemberByHand(follower, "3.5.16");
      assertThat(probe.versions().values()).containsOnlyOnce("3.5.16").contains("3.4.23");
      assertThat(probe.clusterVersion()).isEqualTo("3.4.0");
      long revision = probe.revision();
      var keys = probe.dump(revision);

      RollbackResult result =
          rollbackStub(runbooks)
              .rollback(
                  RollbackRequest.to(
                      "sandbox", "", RunbookOptions.defaults().withMemberTimeoutSeconds(60)));

      assertThat(result.toVersion()).isEqualTo("3.4.23");
      assertThat(result.membersToRollBack()).hasSize(1);
      assertThat(probe.versions())
          .containsOnly(
              Map.entry("m1", "3.4.23"), Map.entry("m2", "3.4.23"), Map.entry("m3", "3.4.23"));
      assertThat(runbooks.state().members()).allSatisfy(m -> assertThat(m.healthy()).isTrue());
      assertThat(probe.dump(revision)).isEqualTo(keys);
      long now = probe.revision();
      assertThat(probe.hashKvByMember(now).values())
          .containsOnly(probe.hashKvByMember(now).get("m1"));
    }
  }

  @Test
  void anUpgradeTerminatedMidwayIsRolledBackIncludingAMemberItLeftStopped() throws Exception {
    try (SandboxRunbooks runbooks = SandboxRunbooks.start(dir, "3.4.23", Map.of());
        ClusterProbe probe = new ClusterProbe(runbooks.sandbox.cluster())) {
      probe.putManyUnordered("/registry/services/s-", 200);
      long revision = probe.revision();
      var keys = probe.dump(revision);
      terminateUpgradeAfterItsFirstMember(runbooks);
      assertThat(runbooks.state().members())
          .anySatisfy(m -> assertThat(m.serverVersion()).isEqualTo("3.5.16"));

      RollbackResult result =
          rollbackStub(runbooks)
              .rollback(
                  RollbackRequest.to(
                      "sandbox", "3.4.23", RunbookOptions.defaults().withMemberTimeoutSeconds(60)));

      assertThat(result.memberVersions())
          .containsOnly(
              Map.entry("m1", "3.4.23"), Map.entry("m2", "3.4.23"), Map.entry("m3", "3.4.23"));
      assertThat(runbooks.state().members()).allSatisfy(m -> assertThat(m.healthy()).isTrue());
      assertThat(probe.dump(revision)).isEqualTo(keys);
    }
  }

  @Test
  void
      afterAFullUpgradeItRefusesWithoutAcknowledgementThenRestoresThePreUpgradeBackupWithTheOldBinariesAndTheRevisionRaised()
          throws Exception {
    try (SandboxRunbooks runbooks = SandboxRunbooks.start(dir, "3.4.23", Map.of());
        ClusterProbe probe = new ClusterProbe(runbooks.sandbox.cluster())) {
      probe.putManyUnordered("/registry/deployments/before-", 300);
      UpgradeResult upgrade = runbooks.upgradeStub().upgrade(runbooks.request("3.5.16"));
      Map<String, ClusterProbe.StoredKey> preUpgrade = probe.dump(upgrade.backup().revision());
      probe.putMany("/registry/deployments/after-", 25);
      long lastRevision = probe.revision();
      Map<String, Long> pids = runbooks.pids();

      assertThatThrownBy(
              () ->
                  rollbackStub(runbooks)
                      .rollback(
                          RollbackRequest.to(
                              "sandbox",
                              "3.4.23",
                              RunbookOptions.defaults().withMemberTimeoutSeconds(60))))
          .isInstanceOf(WorkflowFailedException.class)
          .satisfies(
              e ->
                  assertThat(Failures.rootMessage(e))
                      .contains(
                          "refused, nothing was touched",
                          "cluster version is already 3.5.0",
                          "pre-upgrade backup",
                          "acknowledgeDataLoss: true"));
      assertThat(runbooks.pids()).isEqualTo(pids);

      RollbackResult result =
          rollbackStub(runbooks)
              .rollback(
                  RollbackRequest.to(
                          "sandbox",
                          "3.4.23",
                          RunbookOptions.defaults().withMemberTimeoutSeconds(60))
                      .acknowledgingDataLoss());

      assertThat(result.restoredBackupId()).isEqualTo(upgrade.backup().id());
      assertThat(result.lostRevisions())
          .contains((upgrade.backup().revision() + 1) + ".." + lastRevision);
      assertThat(result.memberVersions())
          .containsOnly(
              Map.entry("m1", "3.4.23"), Map.entry("m2", "3.4.23"), Map.entry("m3", "3.4.23"));
      assertThat(probe.versions().values()).containsOnly("3.4.23");
      assertThat(probe.clusterVersion()).isEqualTo("3.4.0");
      assertThat(runbooks.state().members()).allSatisfy(m -> assertThat(m.healthy()).isTrue());
      assertThat(probe.dump(0)).isEqualTo(preUpgrade);
      long now = probe.revision();
      // 3.4's etcdctl cannot raise the revision: the restore took 3.5.30's etcdutl, so no watcher
      // sees it go back below one it saw
      assertThat(now).as("revision after the rollback").isGreaterThan(lastRevision);
      // 3.4 refuses a hash at its compaction revision, which --mark-compacted made the newest: 0
      assertThat(probe.hashKvByMember(0).values().stream().distinct()).hasSize(1);
    }
  }

  /**
   * An upgrade to 3.5.16 terminated by an operator once its first member is done, wherever the next
   * one is.
   */
  private static void terminateUpgradeAfterItsFirstMember(SandboxRunbooks runbooks)
      throws InterruptedException {
    UpgradeClusterWorkflow upgrade = runbooks.upgradeStub();
    WorkflowClient.start(upgrade::upgrade, runbooks.request("3.5.16"));
    Instant deadline = Instant.now().plus(Duration.ofMinutes(2));
    while (Instant.now().isBefore(deadline)) {
      Progress progress = upgrade.progress();
      List<CompletedStep> done = progress == null ? List.of() : progress.completed();
      if (done.stream().anyMatch(s -> s.name().endsWith(": ready on 3.5.16"))) {
        break;
      }
      TimeUnit.MILLISECONDS.sleep(50);
    }
    // into the next member's restart (stop, switch, start in one activity): the activity goes on
    // on the worker once the run is terminated; it must not select 3.5.16 after the rollback has
    // put 3.4.23 back
    String first = firstSwitched(upgrade);
    while (Instant.now().isBefore(deadline)) {
      String inHand = upgrade.progress().member();
      if (!inHand.isEmpty() && !inHand.equals(first)) break;
      TimeUnit.MILLISECONDS.sleep(20);
    }
    TimeUnit.MILLISECONDS.sleep(150); // past the member's discover, into its stop
    WorkflowStub.fromTyped(upgrade).terminate("operator stopped the upgrade");
    // The rollback starts at once: the install the terminated run left on the worker asks Temporal
    // before it
    // selects 3.5.16, and stops (RunLiveness).
  }

  /** The member the upgrade switched first, from its "mX: ready on 3.5.16" step. */
  private static String firstSwitched(UpgradeClusterWorkflow upgrade) {
    return upgrade.progress().completed().stream()
        .map(CompletedStep::name)
        .filter(n -> n.endsWith(": ready on 3.5.16"))
        .map(n -> n.substring(0, n.indexOf(':')))
        .findFirst()
        .orElse("?");
  }

  private static RollbackClusterWorkflow rollbackStub(SandboxRunbooks runbooks) {
    return runbooks
        .client()
        .newWorkflowStub(
            RollbackClusterWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(RollbackClusterWorkflow.workflowId("sandbox"))
                .setTaskQueue(SandboxRunbooks.TASK_QUEUE)
                .build());
  }
}
