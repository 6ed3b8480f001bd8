package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.testkit.Sandbox;
import io.etcdrunbooks.workflows.common.Progress;
import io.etcdrunbooks.workflows.common.RunbookIds;
import io.etcdrunbooks.workflows.fleet.ClusterOutcome;
import io.etcdrunbooks.workflows.fleet.FleetStatus;
import io.etcdrunbooks.workflows.fleet.FleetUpgradeRequest;
import io.etcdrunbooks.workflows.fleet.FleetUpgradeWorkflow;
import io.etcdrunbooks.workflows.upgrade.UpgradeClusterWorkflow;
import io.temporal.client.WorkflowClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Test 4 of the fleet issue: the worker, a JVM of its own against Temporal in this JVM, is killed
 * with SIGKILL while a wave runs, in the middle of a cluster; a second worker JVM finishes the
 * fleet and no cluster, no member, is upgraded twice.
 */
@RealEtcd
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class FleetWorkerCrashTest {

  private static final String TASK_QUEUE = "etcd-runbooks-fleet-crash-test";

  @TempDir Path dir;

  @Test
  void aWorkerKilledInTheMiddleOfAWaveIsReplacedAndNoClusterIsUpgradedTwice() throws Exception {
    try (FleetSandboxes fleet =
            new FleetSandboxes(
                dir,
                List.of(cluster("c1", "small"), cluster("c2", "medium"), cluster("c3", "medium")),
                false);
        WorkerCrashScenario crash =
            WorkerCrashScenario.withWorker(dir, fleet.inventoryFile, TASK_QUEUE)) {
      FleetUpgradeWorkflow workflow =
          crash.workflow(FleetUpgradeWorkflow.class, FleetUpgradeWorkflow.workflowId("everything"));
      WorkflowClient.start(
          workflow::upgrade,
          FleetUpgradeRequest.of("everything", "", "3.5.30")
              .withConcurrency(2)
              .withMemberTimeoutSeconds(120));

      String[] inHand =
          crash.await(
              () -> aMemberDoneInTheSecondWave(crash.client()),
              Duration.ofMinutes(4),
              "second-wave member on 3.5.30");
      crash.killWorker();
      long donePid = fleet.sandboxes.get(inHand[0]).pidOf(inHand[1]);

      crash.startWorker();
      FleetStatus status = crash.result(workflow, FleetStatus.class, Duration.ofMinutes(6));

      assertThat(status.clusters())
          .allSatisfy(
              c -> assertThat(c.state()).as(c.cluster()).isEqualTo(ClusterOutcome.UPGRADED));
      assertThat(fleet.sandboxes.get(inHand[0]).pidOf(inHand[1]))
          .as("%s of %s, on 3.5.30 before the kill, was not restarted again", inHand[1], inHand[0])
          .isEqualTo(donePid);
      for (Map.Entry<String, Sandbox> c : fleet.sandboxes.entrySet()) {
        for (MemberSpec m : c.getValue().cluster().members()) {
          String log = Files.readString(Path.of(m.serviceDir(), "etcd.log"));
          assertThat(WorkerCrashScenario.count(log, "\"etcd-version\":\"3.5.30\""))
              .as("starts of %s of %s on 3.5.30", m.name(), c.getKey())
              .isEqualTo(1);
          assertThat(WorkerCrashScenario.count(log, "\"etcd-version\":\"3.5.16\""))
              .as("starts of %s of %s on 3.5.16", m.name(), c.getKey())
              .isEqualTo(1);
        }
        try (ClusterProbe probe = fleet.probe(c.getKey())) {
          assertThat(probe.versions().values()).containsOnly("3.5.30");
          long now = probe.revision();
          assertThat(probe.hashKvByMember(now).values().stream().distinct()).hasSize(1);
        }
      }
    }
  }

  private static FleetSandboxes.Planned cluster(String name, String size) {
    return new FleetSandboxes.Planned(
        name, "3.5.16", Map.of("tier", "test", "size", size), Map.of());
  }

  /** [cluster, member]: a member of a second-wave cluster already ready on 3.5.30. */
  private static Optional<String[]> aMemberDoneInTheSecondWave(WorkflowClient client) {
    for (String cluster : List.of("c2", "c3")) {
      Optional<String> done = doneMember(client, cluster);
      if (done.isPresent()) return Optional.of(new String[] {cluster, done.get()});
    }
    return Optional.empty();
  }

  private static Optional<String> doneMember(WorkflowClient client, String cluster) {
    Progress progress;
    try {
      progress =
          client
              .newWorkflowStub(UpgradeClusterWorkflow.class, RunbookIds.changing(cluster))
              .progress();
    } catch (io.temporal.client.WorkflowException notYet) {
      return Optional.empty(); // not started, or a dry run's
    }
    if (progress == null || !progress.runbook().equals(UpgradeClusterWorkflow.TYPE))
      return Optional.empty();
    return WorkerCrashScenario.firstMemberReadyOn("3.5.30", progress);
  }
}
