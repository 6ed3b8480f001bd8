package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.InventorySource;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.inventory.TemporalInventoryRecords;
import io.etcdrunbooks.testkit.ControlPlaneStandIns;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.scale.ScaleClusterRequest;
import io.etcdrunbooks.workflows.scale.ScaleClusterResult;
import io.etcdrunbooks.workflows.scale.ScaleClusterWorkflow;
import io.temporal.client.WorkflowFailedException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/** ScaleCluster on real sandbox clusters with kube-apiserver stand-ins on the first hosts. */
@RealEtcd
@Execution(ExecutionMode.CONCURRENT)
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class ScaleClusterTest {

  private static final RunbookOptions OPTIONS =
      RunbookOptions.defaults().withMemberTimeoutSeconds(60).withApiServerTimeoutSeconds(30);

  @TempDir Path dir;

  @Test
  void a3_5ClusterGrowsTo5AndShrinksBackTo3WithAWriterRunningAndNoAcknowledgedWriteLost()
      throws Exception {
    try (SandboxRunbooks runbooks = SandboxRunbooks.start(dir, "3.5.30", Map.of());
        ControlPlaneStandIns apiServers = ControlPlaneStandIns.attach(runbooks.sandbox)) {
      Map<String, ClusterProbe.StoredKey> keys = writeKeys(runbooks, 300);
      MemberPlacement m4 = runbooks.sandbox.addHost("m4", "m4");
      MemberPlacement m5 = runbooks.sandbox.addHost("m5", "m5");
      try (AcknowledgedWriter writer = AcknowledgedWriter.start(runbooks.cluster(), null)) {
        ScaleClusterResult grown =
            runbooks
                .scaleStub()
                .scale(ScaleClusterRequest.growing("sandbox", 5, List.of(m4, m5), OPTIONS));

        assertThat(grown.outcome()).isEqualTo(ScaleClusterResult.SCALED);
        assertThat(grown.fromSize()).isEqualTo(3);
        assertThat(grown.toSize()).isEqualTo(5);
        assertThat(grown.added()).containsExactly("m4", "m5");
        assertThat(grown.apiServersUpdated()).containsExactlyElementsOf(apiServers.hosts());
        assertHealthyAndIntact(runbooks, List.of("m1", "m2", "m3", "m4", "m5"), keys);
        assertApiServersOn(runbooks, apiServers);

        record(runbooks, "grow");
        String leader = runbooks.state().leaderName();
        ScaleClusterResult shrunk =
            runbooks.scaleStub().scale(ScaleClusterRequest.shrinking("sandbox", 3, OPTIONS));

        assertThat(shrunk.outcome()).isEqualTo(ScaleClusterResult.SCALED);
        assertThat(shrunk.removed()).hasSize(2).doesNotContain(leader);
        assertThat(shrunk.members()).hasSize(3).contains(leader);
        assertThat(runbooks.cluster().members())
            .extracting(MemberSpec::name)
            .containsExactlyElementsOf(shrunk.members().stream().sorted().toList());
        assertHealthyAndIntact(
            runbooks, runbooks.cluster().members().stream().map(MemberSpec::name).toList(), keys);
        assertApiServersOn(runbooks, apiServers);
        record(runbooks, "shrink");
        for (String removed : shrunk.removed()) {
          assertThat(runbooks.sandbox.pidOf(removed)).as("%s's etcd stopped", removed).isNegative();
        }
        writer.stopAndCheckEveryAcknowledgedWrite(runbooks.cluster());
      }
    }
  }

  /**
   * Also with the runbooks' inventory record in Temporal ({@code runbooks.inventory-store:
   * temporal}): the new members are recorded there, every reader sees them, the operator's file is
   * not written.
   */
  @Test
  void on3_3NewMembersJoinAsVotingMembersOneAtATime() throws Exception {
    try (SandboxRunbooks runbooks = SandboxRunbooks.startRecordingInTemporal(dir, "3.3.25")) {
      Map<String, ClusterProbe.StoredKey> keys = writeKeys(runbooks, 100);
      MemberPlacement m4 = runbooks.sandbox.addHost("m4", "m4");
      MemberPlacement m5 = runbooks.sandbox.addHost("m5", "m5");
      String operators = Files.readString(runbooks.sandbox.inventoryFile());

      ScaleClusterResult grown =
          runbooks
              .scaleStub()
              .scale(ScaleClusterRequest.growing("sandbox", 5, List.of(m4, m5), OPTIONS));

      assertThat(grown.added()).containsExactly("m4", "m5");
      assertHealthyAndIntact(runbooks, List.of("m1", "m2", "m3", "m4", "m5"), keys);
      assertThat(Files.readString(runbooks.sandbox.inventoryFile()))
          .as("the operator's inventory file")
          .isEqualTo(operators);
      assertThat(runbooks.inventory.operators().cluster("sandbox").members()).hasSize(3);
      assertThat(
              new InventorySource(
                      runbooks.sandbox.inventoryFile(),
                      new TemporalInventoryRecords(
                          runbooks.env.getWorkflowClient(), SandboxRunbooks.RECORDS_TASK_QUEUE),
                      Duration.ZERO)
                  .get()
                  .cluster("sandbox")
                  .members())
          .as("another worker's reader")
          .extracting(MemberSpec::name)
          .containsExactly("m1", "m2", "m3", "m4", "m5");
      try (ClusterProbe probe = new ClusterProbe(runbooks.cluster())) {
        assertThat(probe.versions().values()).containsOnly("3.3.25");
      }
    }
  }

  /**
   * m5's peer port is held by another process: m4 joins and is kept, m5 is removed again, and the
   * failure names both; once the port is free the same request finishes the job.
   */
  @Test
  void aNewMemberThatCannotStartIsRemovedAgainTheOneBeforeItStaysAndARunAgainFinishes()
      throws Exception {
    try (SandboxRunbooks runbooks = SandboxRunbooks.start(dir, "3.5.30", Map.of())) {
      Map<String, ClusterProbe.StoredKey> keys = writeKeys(runbooks, 100);
      MemberPlacement m4 = runbooks.sandbox.addHost("m4", "m4");
      MemberPlacement m5 = runbooks.sandbox.addHost("m5", "m5");
      ScaleClusterRequest request =
          ScaleClusterRequest.growing("sandbox", 5, List.of(m4, m5), OPTIONS);
      URI peer = URI.create(m5.peerUrl());
      try (ServerSocket taken =
          new ServerSocket(peer.getPort(), 1, InetAddress.getLoopbackAddress())) {
        assertThat(taken.isBound()).isTrue();
        assertThatThrownBy(() -> runbooks.scaleStub().scale(request))
            .isInstanceOf(WorkflowFailedException.class)
            .satisfies(
                e -> {
                  assertThat(Failures.rootType(e)).isEqualTo("ScaleFailed");
                  assertThat(Failures.rootMessage(e))
                      .contains("the new member m5")
                      .contains("It was removed from the membership again")
                      .contains("added [m4]")
                      .contains("start ScaleCluster again with the same request");
                });
      }
      assertThat(runbooks.cluster().members())
          .extracting(MemberSpec::name)
          .containsExactly("m1", "m2", "m3", "m4");
      assertThat(runbooks.sandbox.pidOf("m5")).isNegative();

      ScaleClusterResult finished = runbooks.scaleStub().scale(request);

      assertThat(finished.added()).containsExactly("m5");
      assertThat(finished.fromSize()).isEqualTo(4);
      assertHealthyAndIntact(runbooks, List.of("m1", "m2", "m3", "m4", "m5"), keys);
    }
  }

  @Test
  void refusalsNameWhatIsWrongAndTouchNothing() throws Exception {
    try (SandboxRunbooks runbooks = SandboxRunbooks.start(dir, "3.5.30", Map.of())) {
      MemberPlacement m4 = runbooks.sandbox.addHost("m4", "m4");
      MemberPlacement m5 = runbooks.sandbox.addHost("m5", "m5");
      String inventoryBefore = Files.readString(runbooks.sandbox.inventoryFile());

      assertRefused(
          runbooks,
          ScaleClusterRequest.growing("sandbox", 4, List.of(m4), OPTIONS),
          "targetSize must be odd and at least 3, got 4");
      assertRefused(
          runbooks,
          ScaleClusterRequest.growing("sandbox", 5, List.of(m4), OPTIONS),
          "growing from 3 to 5 members needs 2 new member(s) in newMembers, 1 given");
      assertThat(
              runbooks
                  .scaleStub()
                  .scale(
                      ScaleClusterRequest.growing(
                          "sandbox", 5, List.of(m4, m5), OPTIONS.asDryRun()))
                  .outcome())
          .isEqualTo(ScaleClusterResult.DRY_RUN);
      assertThat(
              runbooks
                  .scaleStub()
                  .scale(ScaleClusterRequest.shrinking("sandbox", 3, OPTIONS))
                  .outcome())
          .isEqualTo(ScaleClusterResult.UNCHANGED);

      runbooks.sandbox.kill("m2");
      assertRefused(
          runbooks,
          ScaleClusterRequest.growing("sandbox", 5, List.of(m4, m5), OPTIONS),
          "member m2 is unreachable");
      assertThat(Files.readString(runbooks.sandbox.inventoryFile())).isEqualTo(inventoryBefore);
      assertThat(runbooks.sandbox.pidOf("m4")).isNegative();
      try (ClusterProbe probe = new ClusterProbe(runbooks.cluster())) {
        assertThat(probe.members()).hasSize(3);
      }
    }
  }

  private static void assertRefused(
      SandboxRunbooks runbooks, ScaleClusterRequest request, String why) {
    assertThatThrownBy(() -> runbooks.scaleStub().scale(request))
        .isInstanceOf(WorkflowFailedException.class)
        .satisfies(
            e -> {
              assertThat(Failures.rootType(e)).isEqualTo("ScaleRefused");
              assertThat(Failures.rootMessage(e))
                  .contains(
                      "scaling of sandbox to "
                          + request.targetSize()
                          + " members refused, nothing was touched")
                  .contains(why);
            });
  }

  /** The run's history, for the replay test (worker/target/recorded-scale-<what>-history.json). */
  private static void record(SandboxRunbooks runbooks, String what) throws Exception {
    Path out = Path.of("target", "recorded-scale-" + what + "-history.json");
    Files.createDirectories(out.getParent());
    Files.writeString(
        out,
        runbooks.client().fetchHistory(ScaleClusterWorkflow.workflowId("sandbox")).toJson(true));
  }

  private static Map<String, ClusterProbe.StoredKey> writeKeys(SandboxRunbooks runbooks, int count)
      throws Exception {
    try (ClusterProbe probe = new ClusterProbe(runbooks.cluster())) {
      probe.putMany("/registry/secrets/default/s-", count);
      return probe.dump(0);
    }
  }

  /** Every member a healthy voter, etcd's list the inventory's, every key there, hashkv equal. */
  private static void assertHealthyAndIntact(
      SandboxRunbooks runbooks, List<String> members, Map<String, ClusterProbe.StoredKey> keys)
      throws Exception {
    ClusterSpec cluster = runbooks.cluster();
    assertThat(cluster.members()).extracting(MemberSpec::name).containsExactlyElementsOf(members);
    assertThat(runbooks.state().members())
        .hasSize(members.size())
        .allSatisfy(
            m -> {
              assertThat(m.healthy()).as("%s healthy: %s", m.name(), m.errors()).isTrue();
              assertThat(m.learner()).as("%s is a voter", m.name()).isFalse();
            });
    try (ClusterProbe probe = new ClusterProbe(cluster)) {
      var listed = probe.members();
      assertThat(listed).extracting(m -> m.getName()).containsExactlyInAnyOrderElementsOf(members);
      assertThat(probe.dump(0)).containsAllEntriesOf(keys);
      Map<String, Long> hashes = probe.hashKvByMember(probe.revision());
      assertThat(hashes).hasSize(members.size());
      assertThat(hashes.values()).containsOnly(hashes.get(members.get(0)));
    }
  }

  /** Each kube-apiserver lists exactly the inventory's members and is ready on them. */
  private static void assertApiServersOn(SandboxRunbooks runbooks, ControlPlaneStandIns apiServers)
      throws Exception {
    String servers =
        String.join(",", runbooks.cluster().members().stream().map(MemberSpec::clientUrl).toList());
    HttpClient http = HttpClient.newHttpClient();
    for (String host : apiServers.hosts()) {
      assertThat(Files.readString(apiServers.manifest(host)))
          .contains("--etcd-servers=" + servers + "\n")
          .contains("# written by kubeadm");
      int status =
          http.send(
                  HttpRequest.newBuilder(URI.create(apiServers.standIn(host).healthUrl())).build(),
                  HttpResponse.BodyHandlers.discarding())
              .statusCode();
      assertThat(status).as("%s /readyz", host).isEqualTo(200);
    }
  }
}
