package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.testkit.EtcdReleases;
import io.etcdrunbooks.testkit.Ports;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.upgrade.LadderStep;
import io.etcdrunbooks.workflows.upgrade.UpgradeClusterWorkflow;
import io.etcdrunbooks.workflows.upgrade.UpgradeRequest;
import io.etcdrunbooks.workflows.upgrade.UpgradeResult;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowFailedException;
import io.temporal.common.WorkflowExecutionHistory;
import java.nio.file.Files;
import java.nio.file.Path;
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
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class UpgradeClusterTest {

  @TempDir Path dir;

  @Test
  void upgradesThreeMembersFrom3_3_25To3_5_30ThroughTheLadderKeepingEveryKeyAndRevision()
      throws Exception {
    try (SandboxRunbooks runbooks = SandboxRunbooks.start(dir, "3.3.25", Map.of());
        ClusterProbe probe = new ClusterProbe(runbooks.sandbox.cluster())) {
      probe.putManyUnordered("/registry/pods/default/pod-", 300);
      probe.put("/registry/configmaps/overwritten", "first");
      probe.put("/registry/configmaps/overwritten", "second");
      long revisionBefore = probe.revision();
      var keysBefore = probe.dump(revisionBefore);

      UpgradeClusterWorkflow workflow = runbooks.upgradeStub();
      UpgradeResult result = workflow.upgrade(runbooks.request("3.5.30"));

      assertThat(result.plan().steps())
          .extracting(LadderStep::label)
          .containsExactly("3.3.25 -> 3.4.23", "3.4.23 -> 3.5.30");
      assertThat(probe.versions())
          .containsOnlyKeys("m1", "m2", "m3")
          .allSatisfy((m, v) -> assertThat(v).isEqualTo("3.5.30"));
      assertThat(probe.clusterVersion()).isEqualTo("3.5.0");
      assertThat(probe.dump(revisionBefore)).isEqualTo(keysBefore);
      assertThat(probe.dump(0)).containsAllEntriesOf(keysBefore);
      long now = probe.revision();
      assertThat(probe.hashKvByMember(now).values())
          .hasSize(3)
          .containsOnly(probe.hashKvByMember(now).get("m1"));
      assertThat(result.keyspaceAfter()).isEqualTo(result.keyspaceBefore());
      assertThat(result.keyspaceBefore().keyCount()).isEqualTo(keysBefore.size());
      // read beside the backup at the revision discovery saw; afterwards shown unchanged by
      // every member's hashkv there, computed by 3.3.25 before and 3.5.30 after
      assertThat(result.keyspaceBefore().revision())
          .isBetween(revisionBefore, result.backup().revision());
      assertThat(result.notes())
          .anyMatch(
              n ->
                  n.startsWith(
                      "keyspace at revision "
                          + result.keyspaceBefore().revision()
                          + " unchanged: every member's hashkv"));
      assertThat(result.restartedMembers().values())
          .allSatisfy(members -> assertThat(members).containsExactlyInAnyOrder("m1", "m2", "m3"));
      assertThat(Path.of(result.backup().path())).exists();
      assertThat(result.backup().revision()).isGreaterThanOrEqualTo(revisionBefore);
      // each restart's down time, stop until ready: six restarts, in the order they happened
      assertThat(result.memberDownTimes())
          .hasSize(6)
          .allSatisfy(d -> assertThat(d.millis()).isBetween(1L, 60_000L));
      assertThat(result.memberDownTimes().subList(0, 3))
          .allSatisfy(d -> assertThat(d.version()).isEqualTo("3.4.23"));
      assertThat(result.memberDownTimes().subList(3, 6))
          .allSatisfy(d -> assertThat(d.version()).isEqualTo("3.5.30"));
      assertThat(workflow.progress().downTimes()).isEqualTo(result.memberDownTimes());
      // the binaries were staged on every host before any member stopped
      for (String member : List.of("m1", "m2", "m3")) {
        assertThat(
                runbooks
                    .sandbox
                    .hostRoot(member)
                    .resolve("opt/etcd/versions/3.5.30/.sha256-checked"))
            .exists();
      }
      // staged beside the backup, and waited for before the first member stopped
      List<String> steps =
          workflow.progress().completed().stream()
              .map(io.etcdrunbooks.workflows.common.CompletedStep::name)
              .toList();
      assertThat(steps)
          .containsSubsequence(
              "etcd 3.4.23 on every host",
              "etcd 3.5.30 on every host",
              "binaries staged on every host");
      assertThat(steps.indexOf("verified backup"))
          .isLessThan(steps.indexOf("binaries staged on every host"));
      assertThat(steps.indexOf("binaries staged on every host"))
          .isLessThan(
              steps.stream()
                  .filter(n -> n.endsWith(": ready on 3.4.23"))
                  .map(steps::indexOf)
                  .findFirst()
                  .orElseThrow());
      // the rung's leader, restarted last, got leadership back before the cluster version wait
      assertThat(steps).anyMatch(n -> n.startsWith("hand leadership back to "));

      recordHistoryForReplayTest(runbooks.client());
    }
  }

  /**
   * Issue 29's first test: 3.5.30 to 3.7.3 through every rung etcd asks for (3.5.32+ before 3.6,
   * 3.6.11+ before 3.7), a writer going on throughout.
   */
  @Test
  void climbsFrom3_5_30To3_7_3ThroughEveryRungLosingNoAcknowledgedWrite() throws Exception {
    try (SandboxRunbooks runbooks = SandboxRunbooks.start(dir, "3.5.30", Map.of());
        ClusterProbe probe = new ClusterProbe(runbooks.sandbox.cluster());
        AcknowledgedWriter writer = AcknowledgedWriter.start(runbooks.sandbox.cluster(), null);
        MemberFlagsWatch flags =
            MemberFlagsWatch.start(runbooks.sandbox, List.of("m1", "m2", "m3"))) {
      UpgradeResult result = runbooks.upgradeStub().upgrade(runbooks.request("3.7.3"));
      writer.stopAndCheckEveryAcknowledgedWrite(runbooks.sandbox.cluster());
      var started = flags.stop();

      assertThat(result.plan().steps())
          .extracting(LadderStep::label)
          .containsExactly("3.5.30 -> 3.5.35", "3.5.35 -> 3.6.16", "3.6.16 -> 3.7.3");
      assertThat(result.restartedMembers().values())
          .allSatisfy(members -> assertThat(members).containsExactlyInAnyOrder("m1", "m2", "m3"));
      assertThat(probe.versions())
          .containsOnly(
              Map.entry("m1", "3.7.3"), Map.entry("m2", "3.7.3"), Map.entry("m3", "3.7.3"));
      assertThat(probe.clusterVersion()).isEqualTo("3.7.0");
      assertThat(result.clusterVersion()).isEqualTo("3.7.0");
      long now = probe.revision();
      assertThat(probe.hashKvByMember(now).values())
          .hasSize(3)
          .containsOnly(probe.hashKvByMember(now).get("m1"));
      // each member ran every rung with the flags it had on 3.5.30: nothing dropped or added
      assertThat(started)
          .containsOnlyKeys("m1", "m2", "m3")
          .allSatisfy(
              (member, byVersion) -> {
                assertThat(byVersion)
                    .containsOnlyKeys("3.5.30", "3.5.35", "3.6.16", "3.7.3")
                    .allSatisfy(
                        (version, flagsThen) ->
                            assertThat(flagsThen)
                                .as(member + " on " + version)
                                .isEqualTo(byVersion.get("3.5.30")));
                assertThat(byVersion.get("3.5.30").env()).containsKey("ETCD_NAME");
              });
    }
  }

  /**
   * Issue 29's fourth test, on real members: 3.5.30 cannot enter 3.6 until it is on 3.5.32 or later
   * (refused, naming it, while the binary source offers no such release), and an unpromoted learner
   * added with `etcdctl member add --learner` is refused before any member changes.
   */
  @Test
  void refusesTo3_6Without3_5_32OnOfferAndWithALeftoverLearnerTouchingNothing() throws Exception {
    try (SandboxRunbooks runbooks = SandboxRunbooks.start(dir, "3.5.30", Map.of())) {
      Map<String, Long> pids = runbooks.pids();
      runbooks.withheldReleases.add("3.5.35");
      assertThatThrownBy(() -> runbooks.upgradeStub().upgrade(runbooks.request("3.6.16")))
          .isInstanceOf(WorkflowFailedException.class)
          .satisfies(
              e ->
                  assertThat(Failures.rootMessage(e))
                      .contains(
                          "refused, nothing was touched",
                          "etcd 3.6 needs every member on 3.5.32 or later first",
                          "reaches it from 3.5.30",
                          "offer 3.5.32 or later"));

      runbooks.withheldReleases.clear();
      addUnpromotedLearner(runbooks);
      assertThatThrownBy(() -> runbooks.upgradeStub().upgrade(runbooks.request("3.6.16")))
          .isInstanceOf(WorkflowFailedException.class)
          .satisfies(
              e ->
                  assertThat(Failures.rootMessage(e))
                      .contains(
                          "refused, nothing was touched",
                          "etcd lists learner",
                          "#19557, fixed in 3.5.20",
                          "etcdctl member remove"));
      assertThat(runbooks.pids()).isEqualTo(pids);
      assertThat(runbooks.backups()).isEmpty();
      assertThat(runbooks.state().members())
          .allSatisfy(m -> assertThat(m.serverVersion()).isEqualTo("3.5.30"));
    }
  }

  /**
   * `etcdctl member add m4 --learner` with a peer URL nothing listens on. etcd answers "unhealthy
   * cluster" until every member has been connected to the others for 5 s (its strict reconfig
   * check), which a sandbox started a moment ago may not be yet: asked again until then.
   */
  private static void addUnpromotedLearner(SandboxRunbooks runbooks) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    String peer = "--peer-urls=http://127.0.0.1:" + Ports.free();
    while (true) {
      Process add =
          new ProcessBuilder(
                  EtcdReleases.binDir("3.5.30").resolve("etcdctl").toString(),
                  "--endpoints=" + runbooks.cluster().member("m1").clientUrl(),
                  "member",
                  "add",
                  "m4",
                  peer,
                  "--learner")
              .redirectErrorStream(true)
              .start();
      String out = new String(add.getInputStream().readAllBytes());
      if (add.waitFor() == 0) return;
      assertThat(out).as("etcdctl member add").contains("unhealthy cluster");
      assertThat(System.nanoTime()).as("member add within 30 s: " + out).isLessThan(deadline);
      TimeUnit.MILLISECONDS.sleep(500);
    }
  }

  @Test
  void dryRunReturnsTheLadderAndTouchesNothing() throws Exception {
    try (SandboxRunbooks runbooks = SandboxRunbooks.start(dir, "3.3.25", Map.of())) {
      Map<String, Long> pids = runbooks.pids();
      UpgradeResult result =
          runbooks
              .upgradeStub()
              .upgrade(
                  UpgradeRequest.to("sandbox", "3.5.30", RunbookOptions.defaults().asDryRun()));

      assertThat(result.dryRun()).isTrue();
      assertThat(result.backup()).isNull();
      assertThat(result.plan().steps())
          .extracting(LadderStep::label)
          .containsExactly("3.3.25 -> 3.4.23", "3.4.23 -> 3.5.30");
      assertThat(result.plan().steps().get(0).memberOrder())
          .hasSize(3)
          .endsWith(runbooks.state().leaderName());
      assertThat(runbooks.pids()).isEqualTo(pids);
      assertThat(runbooks.state().members())
          .allSatisfy(m -> assertThat(m.serverVersion()).isEqualTo("3.3.25"));
      assertThat(runbooks.backups()).isEmpty();
    }
  }

  @Test
  void aMemberThatFailsOnTheNewVersionIsRolledBackWithTheOthersAndTheRunbookNamesTheCause()
      throws Exception {
    // 3.4 accepts --logger=capnslog, 3.5 refuses it: a host whose configuration the new version
    // rejects.
    try (SandboxRunbooks runbooks =
            SandboxRunbooks.start(dir, "3.4.23", Map.of("m2", Map.of("ETCD_LOGGER", "capnslog")));
        ClusterProbe probe = new ClusterProbe(runbooks.sandbox.cluster())) {
      probe.putMany("/registry/secrets/s-", 100);
      long revision = probe.revision();
      var keys = probe.dump(revision);

      assertThatThrownBy(() -> runbooks.upgradeStub().upgrade(runbooks.request("3.5.16")))
          .isInstanceOf(WorkflowFailedException.class)
          .satisfies(
              e ->
                  assertThat(Failures.rootMessage(e))
                      .contains(
                          "failed at member m2",
                          "3.4.23 -> 3.5.16",
                          "--logger=capnslog is removed in v3.5",
                          "Rolled back")
                      .contains("m1 3.4.23 healthy", "m2 3.4.23 healthy", "m3 3.4.23 healthy"));

      assertThat(probe.versions())
          .containsOnly(
              Map.entry("m1", "3.4.23"), Map.entry("m2", "3.4.23"), Map.entry("m3", "3.4.23"));
      assertThat(runbooks.state().members()).allSatisfy(m -> assertThat(m.healthy()).isTrue());
      assertThat(probe.dump(revision)).isEqualTo(keys);
      assertThat(probe.clusterVersion()).isEqualTo("3.4.0");
    }
  }

  /**
   * Keeps the history of a real upgrade where the replay test of the workflows module can pick it
   * up.
   */
  private static void recordHistoryForReplayTest(WorkflowClient client) throws Exception {
    WorkflowExecutionHistory history =
        client.fetchHistory(UpgradeClusterWorkflow.workflowId("sandbox"));
    Path out = Path.of("target", "recorded-upgrade-history.json");
    Files.createDirectories(out.getParent());
    Files.writeString(out, history.toJson(true));
  }
}
