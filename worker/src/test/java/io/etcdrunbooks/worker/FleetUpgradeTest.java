package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.testkit.KubernetesApiStandIn;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.fleet.ClusterOutcome;
import io.etcdrunbooks.workflows.fleet.FleetStatus;
import io.etcdrunbooks.workflows.fleet.FleetUpgradeRequest;
import io.etcdrunbooks.workflows.fleet.FleetUpgradeWorkflow;
import io.etcdrunbooks.workflows.fleet.FleetWave;
import io.etcdrunbooks.workflows.upgrade.UpgradeClusterWorkflow;
import io.etcdrunbooks.workflows.upgrade.UpgradeRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowFailedException;
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

/**
 * FleetUpgrade on real sandboxes: several 3-member clusters in one inventory, labelled, upgraded in
 * waves by one worker, each cluster an UpgradeCluster child under its change id.
 */
@RealEtcd
@Timeout(value = 12, unit = TimeUnit.MINUTES)
class FleetUpgradeTest {

  @TempDir Path dir;

  private static FleetSandboxes.Planned cluster(String name, String version, String size) {
    return new FleetSandboxes.Planned(
        name, version, Map.of("tier", "test", "size", size), Map.of());
  }

  /**
   * Tests 1 and 3 of the issue: a canary, then three at concurrency 2, in that order and never more
   * than two at once (from the recorded timeline); a fifth cluster busy with another change is
   * skipped and reported, and left as it was.
   */
  @Test
  void aCanaryThenAWaveAtConcurrencyTwoUpgradeEveryClusterAndABusyOneIsSkippedAndReported()
      throws Exception {
    try (FleetSandboxes fleet =
        new FleetSandboxes(
            dir,
            List.of(
                cluster("c1", "3.5.16", "small"),
                cluster("c2", "3.5.16", "medium"),
                cluster("c3", "3.5.16", "medium"),
                cluster("c4", "3.5.16", "medium"),
                cluster("c5", "3.5.16", "medium")))) {
      Map<String, Map<String, ClusterProbe.StoredKey>> keys = new java.util.HashMap<>();
      for (String c : List.of("c1", "c2", "c3", "c4")) {
        try (ClusterProbe probe = fleet.probe(c)) {
          probe.putMany("/registry/pods/" + c + "-", 50);
          keys.put(c, probe.dump(probe.revision()));
        }
      }
      // c5 busy: an upgrade waiting for approval holds its change id
      UpgradeClusterWorkflow busy = fleet.upgradeStub("c5");
      WorkflowClient.start(
          busy::upgrade,
          UpgradeRequest.to("c5", "3.5.30", RunbookOptions.defaults().withApproval()));
      awaitPhase(busy, Phase.AWAITING_APPROVAL);
      Map<String, Long> c5Pids = fleet.pids("c5");

      FleetUpgradeWorkflow stub = fleet.fleetStub("everything");
      WorkflowClient.start(
          stub::upgrade,
          FleetUpgradeRequest.of("everything", "", "3.5.30")
              .withConcurrency(2)
              .withApprovalBetweenWaves()
              .withMemberTimeoutSeconds(120));
      // the second wave waits for its approval: the canary is done, the rest untouched
      awaitPhase(stub, Phase.AWAITING_APPROVAL);
      FleetStatus waiting = stub.fleetStatus();
      assertThat(outcome(waiting, "c1").state()).isEqualTo(ClusterOutcome.UPGRADED);
      for (String c : List.of("c2", "c3", "c4"))
        assertThat(outcome(waiting, c).state()).as(c).isEqualTo(ClusterOutcome.PENDING);
      assertThat(stub.progress().message()).contains("wave medium [c2, c3, c4]");
      // the same in /metrics, per wave and state
      awaitGauge(fleet, "canary", ClusterOutcome.UPGRADED, 1);
      awaitGauge(fleet, "medium", ClusterOutcome.PENDING, 3);
      stub.approve("on-call");
      FleetStatus status =
          WorkflowStub.fromTyped(stub).getResult(8, TimeUnit.MINUTES, FleetStatus.class);

      awaitGauge(fleet, "medium", ClusterOutcome.UPGRADED, 3);
      awaitGauge(fleet, "medium", ClusterOutcome.PENDING, 0);
      assertThat(status.waves())
          .extracting(FleetWave::name, FleetWave::clusters)
          .containsExactly(
              org.assertj.core.groups.Tuple.tuple("canary", List.of("c1")),
              org.assertj.core.groups.Tuple.tuple("medium", List.of("c2", "c3", "c4")));
      assertThat(outcome(status, "c5").state()).isEqualTo(ClusterOutcome.BUSY);
      assertThat(outcome(status, "c5").detail()).contains("change-c5");
      for (String c : List.of("c1", "c2", "c3", "c4")) {
        assertThat(outcome(status, c).state()).as(c).isEqualTo(ClusterOutcome.UPGRADED);
        try (ClusterProbe probe = fleet.probe(c)) {
          assertThat(probe.versions().values()).as(c).containsOnly("3.5.30");
          assertThat(probe.dump(0)).as(c).containsAllEntriesOf(keys.get(c));
          long now = probe.revision();
          assertThat(probe.hashKvByMember(now).values().stream().distinct()).as(c).hasSize(1);
        }
      }
      // the timeline: the canary ended before the wave began; never more than two at once, and two
      ClusterOutcome canary = outcome(status, "c1");
      List<ClusterOutcome> wave =
          List.of(outcome(status, "c2"), outcome(status, "c3"), outcome(status, "c4"));
      assertThat(wave)
          .allSatisfy(
              o ->
                  assertThat(o.startedAtMillis())
                      .isGreaterThanOrEqualTo(canary.finishedAtMillis()));
      int most = 0;
      for (ClusterOutcome o : wave) {
        long at = o.startedAtMillis();
        int running =
            (int)
                wave.stream()
                    .filter(x -> x.startedAtMillis() <= at && x.finishedAtMillis() > at)
                    .count();
        most = Math.max(most, running);
      }
      assertThat(most).isEqualTo(2);
      // the busy cluster untouched, its own change still waiting
      try (ClusterProbe probe = fleet.probe("c5")) {
        assertThat(probe.versions().values()).containsOnly("3.5.16");
      }
      assertThat(fleet.pids("c5")).isEqualTo(c5Pids);
      assertThat(busy.progress().phase()).isEqualTo(Phase.AWAITING_APPROVAL);
      WorkflowStub.fromTyped(busy).cancel();
    }
  }

  /**
   * Test 2: a cluster of the second wave fails (its m2 is set up with a logger 3.5 refuses): the
   * fleet halts, that cluster is put back by its own runbook, the cluster not yet started is
   * untouched, and the failure names them.
   */
  @Test
  void aFailingClusterHaltsTheFleetItIsPutBackAndTheClustersNotStartedAreUntouched()
      throws Exception {
    try (FleetSandboxes fleet =
        new FleetSandboxes(
            dir,
            List.of(
                cluster("c1", "3.4.23", "small"),
                cluster("c2", "3.4.23", "medium"),
                new FleetSandboxes.Planned(
                    "c3",
                    "3.4.23",
                    Map.of("tier", "test", "size", "medium"),
                    Map.of("m2", Map.of("ETCD_LOGGER", "capnslog"))),
                cluster("c4", "3.4.23", "medium")))) {
      Map<String, Long> c4Pids = fleet.pids("c4");
      FleetUpgradeWorkflow stub = fleet.fleetStub("everything");
      assertThatThrownBy(
              () ->
                  stub.upgrade(
                      FleetUpgradeRequest.of("everything", "tier=test", "3.5.30")
                          .withMemberTimeoutSeconds(120)))
          .isInstanceOf(WorkflowFailedException.class)
          .satisfies(
              e -> {
                assertThat(Failures.rootType(e)).isEqualTo(FailureType.FleetHalted.name());
                assertThat(Failures.rootMessage(e))
                    .contains("failed [c3]", "not started [c4]", "upgraded [c1, c2]")
                    .contains("--logger=capnslog is removed in v3.5");
              });
      FleetStatus status = stub.fleetStatus();
      assertThat(outcome(status, "c3").state()).isEqualTo(ClusterOutcome.FAILED);
      assertThat(outcome(status, "c4").state()).isEqualTo(ClusterOutcome.NOT_STARTED);
      try (ClusterProbe c3 = fleet.probe("c3");
          ClusterProbe c4 = fleet.probe("c4")) {
        assertThat(c3.versions().values()).containsOnly("3.4.23");
        assertThat(c3.clusterVersion()).isEqualTo("3.4.0");
        assertThat(c4.versions().values()).containsOnly("3.4.23");
      }
      assertThat(fleet.pids("c4")).isEqualTo(c4Pids);
    }
  }

  /**
   * Issue 26, item 13: the canary's etcd upgrade passes its postflight and its kube-apiservers
   * answer, but a node of it goes NotReady a few seconds into the bake (seen through its Kubernetes
   * API): the canary fails, the bake ends there rather than after its minute, and the next wave
   * never starts.
   */
  @Test
  void aNodeThatGoesNotReadyDuringTheCanarysBakeStopsTheFleetBeforeTheNextWave() throws Exception {
    try (FleetSandboxes fleet =
            new FleetSandboxes(
                dir, List.of(cluster("c1", "3.5.16", "small"), cluster("c2", "3.5.16", "medium")));
        KubernetesApiStandIn kubernetes =
            KubernetesApiStandIn.start(dir.resolve("c1-kubernetes"), null)) {
      kubernetes.node("c1-cp-1", true);
      kubernetes.node("c1-worker-1", true);
      kubernetes.notReadyAfterLooks("c1-worker-1", 2);
      fleet.kubernetes("c1", kubernetes.spec(0));
      Map<String, Long> c2Pids = fleet.pids("c2");
      FleetUpgradeWorkflow stub = fleet.fleetStub("everything");

      assertThatThrownBy(
              () ->
                  stub.upgrade(
                      FleetUpgradeRequest.of("everything", "tier=test", "3.5.30")
                          .withBakeMinutes(1)))
          .isInstanceOf(WorkflowFailedException.class)
          .satisfies(
              e -> {
                assertThat(Failures.rootType(e)).isEqualTo(FailureType.FleetHalted.name());
                assertThat(Failures.rootMessage(e)).contains("failed [c1]", "not started [c2]");
              });
      long fleetEnded = System.currentTimeMillis();
      FleetStatus status = stub.fleetStatus();
      assertThat(outcome(status, "c1").state()).isEqualTo(ClusterOutcome.FAILED);
      assertThat(outcome(status, "c1").detail())
          .contains(
              "its nodes were not Ready during the wave's bake",
              "cluster 'c1': 1 of 2 nodes NotReady",
              "c1-worker-1 (Ready=Unknown");
      assertThat(outcome(status, "c2").state()).isEqualTo(ClusterOutcome.NOT_STARTED);
      assertThat(fleet.pids("c2")).isEqualTo(c2Pids);
      assertThat(fleetEnded - outcome(status, "c1").finishedAtMillis())
          .as("from the canary's upgrade to the fleet's end: the bake ended at the NotReady node")
          .isLessThan(Duration.ofSeconds(30).toMillis());
    }
  }

  private static ClusterOutcome outcome(FleetStatus status, String cluster) {
    return status.clusters().stream()
        .filter(o -> o.cluster().equals(cluster))
        .findFirst()
        .orElseThrow();
  }

  /** Waits (bounded) until the runbook's progress is in the phase. */
  /** The metrics are reported every 50 ms: the gauge is read until it shows the count. */
  private static void awaitGauge(FleetSandboxes fleet, String wave, String state, double count)
      throws InterruptedException {
    double seen = -1;
    for (int i = 0; i < 100 && seen != count; i++) {
      seen = fleet.fleetClusters("everything", wave, state);
      if (seen != count) TimeUnit.MILLISECONDS.sleep(50);
    }
    assertThat(seen)
        .as("etcd_runbooks_fleet_clusters{wave=%s,state=%s}", wave, state)
        .isEqualTo(count);
  }

  private static void awaitPhase(io.etcdrunbooks.workflows.common.Runbook workflow, Phase phase)
      throws InterruptedException {
    Instant deadline = Instant.now().plus(Duration.ofMinutes(4));
    while (Instant.now().isBefore(deadline)) {
      try {
        if (workflow.progress() != null && workflow.progress().phase() == phase) return;
      } catch (io.temporal.client.WorkflowException notYet) {
        // not started yet
      }
      TimeUnit.MILLISECONDS.sleep(100);
    }
    throw new AssertionError("not in " + phase + " within 4 minutes: " + workflow.progress());
  }
}
