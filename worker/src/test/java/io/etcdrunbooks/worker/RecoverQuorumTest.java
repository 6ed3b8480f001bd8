package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import io.etcdrunbooks.activities.host.MemberHost;
import io.etcdrunbooks.activities.host.PlainProcessServiceManager;
import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.FencedMemberSpec;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.testkit.ControlPlaneStandIns;
import io.etcdrunbooks.testkit.EtcdReleases;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.workflows.backup.BackupClusterRequest;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.EtcdVersion;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.model.MemberRef;
import io.etcdrunbooks.workflows.recover.RecoverQuorumRequest;
import io.etcdrunbooks.workflows.recover.RecoverQuorumResult;
import io.etcdrunbooks.workflows.recover.RecoverQuorumWorkflow;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowStub;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
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

/**
 * RecoverQuorum on real sandbox clusters that lost a majority of their members. Its methods run
 * side by side, each on its own sandbox: they mostly wait (on etcd's timeouts for lost members and
 * a joining learner's publish), a quarter of a core for four minutes when they ran one by one.
 */
@RealEtcd
@Execution(ExecutionMode.CONCURRENT)
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class RecoverQuorumTest {

  private static final RunbookOptions OPTIONS =
      RunbookOptions.defaults().withMemberTimeoutSeconds(60).withApiServerTimeoutSeconds(30);

  @TempDir Path dir;

  /**
   * m1 is stopped, writes go on on m2 and m3, then m2 and m3 are destroyed and m1 comes back alone:
   * the cluster is rebuilt from m1, what m1 had is there and what only m2 and m3 had is lost, as
   * the plan said.
   */
  @Test
  void threeMembersTwoDestroyedComeBackAsAHealthyThreeMemberClusterFromTheSurvivor()
      throws Exception {
    try (SandboxRunbooks runbooks = SandboxRunbooks.start(dir, "3.5.30", Map.of());
        ControlPlaneStandIns apiServers = ControlPlaneStandIns.attach(runbooks.sandbox)) {
      Map<String, ClusterProbe.StoredKey> kept = writeKeys(runbooks, "/registry/kept/k-", 200);
      // a follower falls behind (held, as a stalled disk would hold it) while the other two go on
      String leader = runbooks.state().leaderName();
      List<String> followers =
          runbooks.cluster().members().stream()
              .map(MemberSpec::name)
              .filter(m -> !m.equals(leader))
              .toList();
      String held = followers.get(0);
      String other = followers.get(1);
      long heldPid = runbooks.sandbox.pidOf(held);
      signal("STOP", heldPid);
      awaitHeld(held, heldPid);
      Map<String, Long> late;
      long watched;
      // an informer's watch on the leader: it sees the late writes, which only the lost members
      // hold
      try (LastRevisionWatch watch =
          LastRevisionWatch.on(runbooks.cluster().member(leader), "/registry/late/")) {
        late = writeThrough(runbooks, leader, "/registry/late/k-", 100);
        watched = watch.await(java.util.Collections.max(late.values()));
      }
      runbooks.destroy(leader);
      // its machine stays: the member is fenced there, its data dir kept aside
      runbooks.sandbox.kill(other);
      signal("CONT", runbooks.sandbox.pidOf(held));
      long heldRevision = serializableRevision(runbooks, held);

      RecoverQuorumResult result =
          recoverApproved(
              runbooks,
              RecoverQuorumRequest.of("sandbox", OPTIONS)
                  .acknowledgingDataLoss()
                  .confirmingLossFor(3));

      assertThat(result.outcome()).isEqualTo(RecoverQuorumResult.RECOVERED);
      assertThat(result.survivor()).isEqualTo(held);
      // it may apply what its sockets still held after the first read: the runbook reports what
      // it kept
      long keptRevision = result.survivorRevision();
      assertThat(keptRevision).isGreaterThanOrEqualTo(heldRevision);
      assertThat(result.rebuilt())
          .containsEntry(leader, leader + "-r1")
          .containsEntry(other, other + "-r1");
      assertThat(result.notes().get(0))
          .contains("rebuilt from " + held + " at revision " + keptRevision)
          .contains("writes after revision " + keptRevision);
      assertThat(Path.of(result.survivorDataDirCopy()).resolve("member")).exists();
      String otherData = runbooks.cluster().member(other + "-r1").dataDir();
      String fencedBy = result.survivorDataDirCopy().replaceFirst(".*(recover-[0-9a-f]{8})$", "$1");
      assertThat(Path.of(otherData + ".fenced-" + fencedBy).resolve("member/wal")).exists();
      assertThat(Path.of(otherData + ".fenced-" + fencedBy + ".README")).exists();
      assertThat(result.notes())
          .anyMatch(n -> n.startsWith(other + ": ") && n.contains("data dir renamed to"));
      List<String> lost =
          late.entrySet().stream()
              .filter(e -> e.getValue() > keptRevision)
              .map(Map.Entry::getKey)
              .toList();
      assertThat(kept.values()).allMatch(k -> k.modRevision() <= keptRevision);
      assertWholeAgain(
          runbooks,
          runbooks.sandbox.cluster().members().stream()
              .map(m -> m.name().equals(held) ? held : m.name() + "-r1")
              .toList(),
          kept,
          lost);
      try (ClusterProbe probe = new ClusterProbe(runbooks.cluster())) {
        Map<String, ClusterProbe.StoredKey> now = probe.dump(0);
        late.forEach(
            (key, revision) -> {
              if (revision <= heldRevision)
                assertThat(now).as("late write %s", key).containsKey(key);
            });
      }
      System.out.printf(
          "%s held at revision %d: %d of %d late writes lost%n",
          held, keptRevision, lost.size(), late.size());
      // no revision the watcher saw comes again: the cluster is past it, a new write too, and
      // the watch resumed after it is told to relist (compacted), not left waiting
      try (ClusterProbe probe = new ClusterProbe(runbooks.cluster())) {
        assertThat(probe.revision()).as("revision after the recovery").isGreaterThan(watched);
        long written =
            probe
                .client()
                .getKVClient()
                .put(ClusterProbe.bytes("/registry/after/k"), ClusterProbe.bytes("v"))
                .get(10, TimeUnit.SECONDS)
                .getHeader()
                .getRevision();
        assertThat(written).as("a new write's revision").isGreaterThan(watched);
        assertThat(LastRevisionWatch.resume(runbooks.cluster(), "/registry/", watched + 1))
            .as("a watch resumed at revision %d", watched + 1)
            .isInstanceOf(io.etcd.jetcd.common.exception.CompactedException.class);
      }
      assertThat(result.revisionBump()).isPositive();
      assertThat(result.notes())
          .anyMatch(
              n ->
                  n.contains("relist") && apiServers.hosts().stream().allMatch(h -> n.contains(h)));
      for (String host : apiServers.hosts()) {
        assertThat(HttpProbe.status(apiServers.standIn(host).healthUrl()))
            .as("%s /readyz", host)
            .isEqualTo(200);
      }
      assertThat(result.apiServersRestarted()).containsExactlyElementsOf(apiServers.hosts());
      // the apiservers serve again on the survivor alone, before any member rejoins
      List<String> steps =
          runbooks
              .client()
              .newWorkflowStub(
                  RecoverQuorumWorkflow.class, RecoverQuorumWorkflow.workflowId("sandbox"))
              .progress()
              .completed()
              .stream()
              .map(io.etcdrunbooks.workflows.common.CompletedStep::name)
              .toList();
      assertThat(indexOfFirst(steps, s -> s.endsWith(": kube-apiserver healthy")))
          .as("steps %s", steps)
          .isNotNegative()
          .isLessThan(indexOfFirst(steps, s -> s.startsWith("add ") && s.endsWith("as a learner")));
      record(runbooks);
    }
  }

  /**
   * Every member went down (a power cut), one came back on its data dir, the others' disks are
   * gone: the one back does not serve clients (etcd waits for quorum to publish itself before it
   * does), so its revision is read from its data dir, and the cluster is rebuilt from it.
   */
  @Test
  void aSurvivorRestartedWithoutQuorumIsFoundByItsDataDirAndTheClusterRebuiltFromIt()
      throws Exception {
    try (SandboxRunbooks runbooks = SandboxRunbooks.start(dir, "3.5.30", Map.of())) {
      Map<String, ClusterProbe.StoredKey> kept = writeKeys(runbooks, "/registry/kept/k-", 100);
      for (String m : List.of("m1", "m2", "m3")) runbooks.sandbox.kill(m);
      runbooks.destroy("m2");
      runbooks.destroy("m3");
      runbooks.host().startMember(new MemberRef("sandbox", "m1"));

      RecoverQuorumResult result =
          recoverApproved(
              runbooks,
              RecoverQuorumRequest.of("sandbox", OPTIONS)
                  .acknowledgingDataLoss()
                  .confirmingLossFor(3));

      assertThat(result.outcome()).isEqualTo(RecoverQuorumResult.RECOVERED);
      assertThat(result.survivor()).isEqualTo("m1");
      assertThat(result.notes().get(0))
          .contains("read from its data dir")
          .contains("rebuilt from m1 at revision " + result.survivorRevision());
      // m1 may have been the member that had not yet applied the last writes when the power went:
      // those were on m2 and m3 only, and are lost, as the report says
      long keptRevision = result.survivorRevision();
      Map<String, ClusterProbe.StoredKey> onM1 = new java.util.TreeMap<>();
      List<String> lost = new java.util.ArrayList<>();
      kept.forEach(
          (key, stored) -> {
            if (stored.modRevision() <= keptRevision) onM1.put(key, stored);
            else lost.add(key);
          });
      assertThat(onM1).isNotEmpty();
      assertWholeAgain(runbooks, List.of("m1", "m2-r1", "m3-r1"), onM1, lost);
      System.out.printf(
          "m1 restarted at revision %d: %d of %d writes lost%n",
          keptRevision, lost.size(), kept.size());
    }
  }

  @Test
  void fiveMembersThreeDestroyedComeBackAsFiveFromTheMostAdvancedSurvivor() throws Exception {
    try (SandboxRunbooks runbooks = SandboxRunbooks.startWithMembers(dir, "3.4.23", 5)) {
      Map<String, ClusterProbe.StoredKey> kept = writeKeys(runbooks, "/registry/kept/k-", 100);
      long before;
      try (ClusterProbe probe = new ClusterProbe(runbooks.cluster())) {
        before = probe.revision();
      }
      for (String m : List.of("m1", "m3", "m5")) runbooks.destroy(m);
      // without a 3.5 etcdutl from 3.5.10 on, 3.4's own tool would leave the revision where the
      // survivor had it: refused, naming the way out
      runbooks.withheldReleases.addAll(
          EtcdReleases.store().versions().stream()
              .filter(v -> !EtcdVersion.parse(v).isBefore(EtcdVersion.parse("3.5.0")))
              .toList());
      assertThatThrownBy(
              () ->
                  runbooks
                      .recoverStub()
                      .recover(
                          RecoverQuorumRequest.of("sandbox", OPTIONS.asDryRun())
                              .acknowledgingDataLoss()))
          .isInstanceOf(WorkflowFailedException.class)
          .satisfies(
              e ->
                  assertThat(Failures.rootMessage(e))
                      .contains("refused, nothing was touched")
                      .contains("runs etcd 3.4.23, whose tool cannot raise the revision")
                      .contains("it has [3.3.25, 3.4.23]")
                      .contains("acknowledgeRevisionsBackward"));
      runbooks.withheldReleases.clear();

      RecoverQuorumResult result =
          recoverApproved(
              runbooks,
              RecoverQuorumRequest.of("sandbox", OPTIONS)
                  .acknowledgingDataLoss()
                  .confirmingLossFor(3));

      assertThat(result.survivor()).isIn("m2", "m4");
      assertThat(result.rebuilt()).hasSize(4);
      assertWholeAgain(
          runbooks,
          runbooks.cluster().members().stream().map(MemberSpec::name).toList(),
          kept,
          List.of());
      assertThat(runbooks.cluster().members()).hasSize(5);
      // 3.4's own tool cannot raise the revision: 3.5.30's etcdutl from the binary source did
      assertThat(result.revisionBump()).isEqualTo(1_000_000_000L);
      try (ClusterProbe probe = new ClusterProbe(runbooks.cluster())) {
        assertThat(probe.revision()).isGreaterThan(before + result.revisionBump() - 1);
      }
    }
  }

  @Test
  void withNoMemberLeftTheNewestVerifiedBackupIsRestoredAndThePlanSaysSo() throws Exception {
    try (SandboxRunbooks runbooks = SandboxRunbooks.start(dir, "3.5.30", Map.of())) {
      Map<String, ClusterProbe.StoredKey> kept = writeKeys(runbooks, "/registry/kept/k-", 100);
      long backupRevision =
          runbooks
              .backupStub()
              .backup(
                  BackupClusterRequest.of("sandbox", "before the loss", RunbookOptions.defaults()))
              .revision();
      writeKeys(runbooks, "/registry/lost/k-", 20);
      for (String m : List.of("m1", "m2", "m3")) runbooks.destroy(m);

      RecoverQuorumResult result =
          recoverApproved(
              runbooks,
              RecoverQuorumRequest.of("sandbox", OPTIONS)
                  .acknowledgingDataLoss()
                  .confirmingLossFor(3));

      assertThat(result.outcome()).isEqualTo(RecoverQuorumResult.RESTORED);
      assertThat(result.backupRevision()).isEqualTo(backupRevision);
      assertThat(result.notes().get(0))
          .contains("no member answers with data: the newest verified backup")
          .contains("every write after it is lost");
      try (ClusterProbe probe = new ClusterProbe(runbooks.cluster())) {
        Map<String, ClusterProbe.StoredKey> now = probe.dump(0);
        assertThat(now.keySet()).containsAll(kept.keySet());
        assertThat(now.keySet()).noneMatch(k -> k.startsWith("/registry/lost/"));
      }
    }
  }

  /**
   * m3's machine is gone with its kube-apiserver (its host key no longer matches: another machine
   * answers there). A dry run is refused naming that control-plane host and the way out; left out
   * with skipControlPlaneHosts, with m3 rebuilt on a new host, the plan goes through. A new host
   * that could not take the member (its data dir under a file, its peer port taken) is refused
   * before the point of no return, naming both.
   */
  @Test
  void aControlPlaneHostLostWithItsMachineIsRefusedUntilItIsLeftOutByName() throws Exception {
    try (SandboxRunbooks runbooks = SandboxRunbooks.start(dir, "3.5.30", Map.of());
        ControlPlaneStandIns apiServers = ControlPlaneStandIns.attach(runbooks.sandbox)) {
      runbooks.destroy("m2");
      runbooks.destroy("m3");
      runbooks.distrustHostOf("m3");
      MemberPlacement m4 = runbooks.sandbox.addHost("m4", "m4");
      RecoverQuorumRequest dryRun =
          RecoverQuorumRequest.of("sandbox", OPTIONS.asDryRun())
              .acknowledgingDataLoss()
              .rebuilding(Map.of("m3", m4))
              .attestingDestroyed(List.of("m3"));

      assertThatThrownBy(() -> runbooks.recoverStub().recover(dryRun))
          .isInstanceOf(WorkflowFailedException.class)
          .satisfies(
              e ->
                  assertThat(Failures.rootMessage(e))
                      .contains("refused, nothing was touched")
                      .contains("control-plane host cp-m3")
                      .contains("skipControlPlaneHosts")
                      .doesNotContain("member m3 ("));

      Path file = runbooks.sandbox.hostRoot("m4").resolve("a-file");
      Files.writeString(file, "not a directory");
      try (java.net.ServerSocket taken =
          new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
        String peerUrl = "http://127.0.0.1:" + taken.getLocalPort();
        MemberPlacement cannotTake =
            new MemberPlacement(
                m4.name(),
                m4.host(),
                m4.sshPort(),
                peerUrl,
                m4.clientUrl(),
                file + "/data",
                m4.installDir(),
                m4.serviceDir());
        assertThatThrownBy(
                () ->
                    runbooks
                        .recoverStub()
                        .recover(
                            dryRun
                                .skippingControlPlaneHosts(List.of("cp-m3"))
                                .rebuilding(Map.of("m3", cannotTake))))
            .isInstanceOf(WorkflowFailedException.class)
            .satisfies(
                e ->
                    assertThat(Failures.rootMessage(e))
                        .contains("refused, nothing was touched")
                        .contains("m3 is rebuilt as m4")
                        .contains("data dir " + file + "/data cannot be created")
                        .contains(
                            "port " + taken.getLocalPort() + " of " + peerUrl + " is in use"));
      }

      RecoverQuorumResult planned =
          runbooks.recoverStub().recover(dryRun.skippingControlPlaneHosts(List.of("cp-m3")));

      assertThat(planned.outcome()).isEqualTo(RecoverQuorumResult.DRY_RUN);
      assertThat(planned.survivor()).isEqualTo("m1");
      assertThat(planned.notes()).anyMatch(n -> n.contains("[cp-m3] were left out"));
      assertThat(apiServers.hosts()).contains("cp-m3");
    }
  }

  /**
   * A rack loses power with m2 and m3: their etcd gone with their data kept, their hosts out of
   * reach. Without an attestation the recovery is refused before anything is touched, naming both
   * members and the field; attested destroyed, they are rebuilt on new hosts. Then the rack comes
   * back while the survivor is cut off from it (held), and m2 and m3 start on their old data: a
   * majority of the old membership, under the cluster's id, they elect a leader and serve the old
   * state. The next discovery, which every runbook runs first, stops both on their hosts and says
   * so.
   */
  @Test
  void lostMembersThatComeBackAfterTheRecoveryAreStoppedAndReportedByDiscovery() throws Exception {
    try (SandboxRunbooks runbooks = SandboxRunbooks.start(dir, "3.5.30", Map.of());
        SshConnector ssh = new SshConnector()) {
      writeKeys(runbooks, "/registry/kept/k-", 50);
      ClusterSpec before = runbooks.cluster();
      runbooks.sandbox.kill("m2");
      runbooks.sandbox.kill("m3");
      String knownHosts = runbooks.distrustHostOf("m2");
      runbooks.distrustHostOf("m3");
      RecoverQuorumRequest request =
          RecoverQuorumRequest.of("sandbox", OPTIONS)
              .acknowledgingDataLoss()
              .confirmingLossFor(3)
              .rebuilding(
                  Map.of(
                      "m2", runbooks.sandbox.addHost("m4", "m4"),
                      "m3", runbooks.sandbox.addHost("m5", "m5")));
      String inventoryBefore = Files.readString(runbooks.sandbox.inventoryFile());

      RecoverQuorumWorkflow unattested = runbooks.recoverStub();
      WorkflowClient.start(unattested::recover, request);
      assertThatThrownBy(
              () ->
                  WorkflowStub.fromTyped(unattested)
                      .getResult(1, TimeUnit.MINUTES, RecoverQuorumResult.class))
          .isInstanceOf(WorkflowFailedException.class)
          .satisfies(
              e ->
                  assertThat(Failures.rootMessage(e))
                      .contains("refused, nothing was touched")
                      .contains("m2 cannot be fenced")
                      .contains("m3 cannot be fenced")
                      .contains("\"destroyed\": [\"m2\", \"m3\"]"));
      assertThat(Files.readString(runbooks.sandbox.inventoryFile())).isEqualTo(inventoryBefore);
      assertThat(runbooks.state().member("m1").orElseThrow().reachable()).isTrue();

      RecoverQuorumResult result =
          recoverApproved(runbooks, request.attestingDestroyed(List.of("m2", "m3")));

      assertThat(result.rebuilt()).containsEntry("m2", "m4").containsEntry("m3", "m5");
      assertThat(result.notes())
          .anyMatch(n -> n.startsWith("m2: attested destroyed"))
          .anyMatch(n -> n.startsWith("m3: attested destroyed"));
      assertThat(runbooks.cluster().fenced())
          .extracting(FencedMemberSpec::name, FencedMemberSpec::how)
          .containsExactly(
              org.assertj.core.groups.Tuple.tuple("m2", FencedMemberSpec.ATTESTED_DESTROYED),
              org.assertj.core.groups.Tuple.tuple("m3", FencedMemberSpec.ATTESTED_DESTROYED));

      long survivor = runbooks.sandbox.pidOf("m1");
      signal("STOP", survivor);
      awaitHeld("m1", survivor);
      runbooks.restoreKnownHosts(knownHosts);
      PlainProcessServiceManager byHand = new PlainProcessServiceManager(ssh);
      MemberHost m2 = MemberHost.of(before, before.member("m2"));
      MemberHost m3 = MemberHost.of(before, before.member("m3"));
      byHand.launch(m2);
      byHand.launch(m3);
      awaitLinearizableRead(before.member("m2"));

      ClusterState discovered = runbooks.state();

      assertThat(discovered.fencedMembersBack())
          .hasSize(2)
          .allMatch(f -> f.contains("with the old membership: stopped and fenced on its host"))
          .anyMatch(f -> f.startsWith("fenced member m2 (attested-destroyed by recover-"))
          .anyMatch(f -> f.startsWith("fenced member m3 (attested-destroyed by recover-"));
      assertThat(byHand.isRunning(m2)).isFalse();
      assertThat(byHand.isRunning(m3)).isFalse();
      for (MemberSpec lost : List.of(before.member("m2"), before.member("m3"))) {
        assertThat(Path.of(lost.dataDir())).doesNotExist();
        try (var kept = Files.list(Path.of(lost.dataDir()).getParent())) {
          assertThat(kept.map(p -> p.getFileName().toString()))
              .anyMatch(n -> n.matches(".*\\.fenced-recover-[0-9a-f]{8}"))
              .anyMatch(n -> n.matches(".*\\.fenced-recover-[0-9a-f]{8}\\.README"));
        }
      }
      signal("CONT", survivor);
      assertThat(runbooks.state().fencedMembersBack()).isEmpty();
    }
  }

  /** Until a linearizable read through the member succeeds (it serves, with a leader), bounded. */
  private static void awaitLinearizableRead(MemberSpec member) throws Exception {
    Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
    try (Client client = Client.builder().endpoints(member.clientUrl()).build()) {
      while (true) {
        try {
          client
              .getKVClient()
              .get(ByteSequence.from("/registry/kept/k-1", StandardCharsets.UTF_8))
              .get(2, TimeUnit.SECONDS);
          return;
        } catch (java.util.concurrent.ExecutionException
            | java.util.concurrent.TimeoutException e) {
          assertThat(Instant.now()).as("%s serves: %s", member.name(), e).isBefore(deadline);
          TimeUnit.MILLISECONDS.sleep(200);
        }
      }
    }
  }

  @Test
  void refusedWithoutAcknowledgementAndWhenAPartitionHealsWithinTheWait() throws Exception {
    try (SandboxRunbooks runbooks = SandboxRunbooks.start(dir, "3.5.30", Map.of())) {
      String inventoryBefore = Files.readString(runbooks.sandbox.inventoryFile());
      assertThatThrownBy(
              () ->
                  runbooks
                      .recoverStub()
                      .recover(RecoverQuorumRequest.of("sandbox", OPTIONS).confirmingLossFor(3)))
          .isInstanceOf(WorkflowFailedException.class)
          .satisfies(
              e ->
                  assertThat(Failures.rootMessage(e)).contains("acknowledgeDataLoss must be true"));

      runbooks.sandbox.kill("m2");
      runbooks.sandbox.kill("m3");
      RecoverQuorumWorkflow workflow = runbooks.recoverStub();
      WorkflowClient.start(
          workflow::recover,
          RecoverQuorumRequest.of("sandbox", OPTIONS)
              .acknowledgingDataLoss()
              .confirmingLossFor(60));
      awaitPhase(workflow, Phase.WAITING);
      // the partition heals: both come back on their data within the wait
      runbooks.host().startMember(new MemberRef("sandbox", "m2"));
      runbooks.host().startMember(new MemberRef("sandbox", "m3"));

      assertThatThrownBy(
              () -> WorkflowStub.fromTyped(workflow).getResult(RecoverQuorumResult.class))
          .isInstanceOf(WorkflowFailedException.class)
          .satisfies(
              e -> {
                assertThat(Failures.rootType(e)).isEqualTo("RecoverRefused");
                assertThat(Failures.rootMessage(e))
                    .contains("refused, nothing was touched")
                    .contains("quorum is present");
              });
      assertThat(Files.readString(runbooks.sandbox.inventoryFile())).isEqualTo(inventoryBefore);
      assertThat(runbooks.state().members()).allMatch(m -> m.healthy());
    }
  }

  private static int indexOfFirst(
      List<String> steps, java.util.function.Predicate<String> matching) {
    for (int i = 0; i < steps.size(); i++) if (matching.test(steps.get(i))) return i;
    return -1;
  }

  /** Starts the recovery, approves it once it waits for approval, and returns its result. */
  private static RecoverQuorumResult recoverApproved(
      SandboxRunbooks runbooks, RecoverQuorumRequest request) throws Exception {
    RecoverQuorumWorkflow workflow = runbooks.recoverStub();
    WorkflowClient.start(workflow::recover, request);
    awaitPhase(workflow, Phase.AWAITING_APPROVAL);
    workflow.approve("test-admin");
    return WorkflowStub.fromTyped(workflow)
        .getResult(4, TimeUnit.MINUTES, RecoverQuorumResult.class);
  }

  private static void awaitPhase(RecoverQuorumWorkflow workflow, Phase phase) throws Exception {
    Instant deadline = Instant.now().plus(Duration.ofMinutes(1));
    while (workflow.progress().phase() != phase) {
      assertThat(Instant.now()).as("progress %s", workflow.progress()).isBefore(deadline);
      TimeUnit.MILLISECONDS.sleep(200);
    }
  }

  /**
   * Puts keys of 64 KiB through one member only (another may be held); returns each key's revision.
   */
  private static Map<String, Long> writeThrough(
      SandboxRunbooks runbooks, String member, String prefix, int count) throws Exception {
    Map<String, Long> revisions = new java.util.LinkedHashMap<>();
    try (Client client =
        Client.builder().endpoints(runbooks.cluster().member(member).clientUrl()).build()) {
      for (int i = 0; i < count; i++) {
        String key = prefix + i;
        revisions.put(
            key,
            client
                .getKVClient()
                .put(
                    ByteSequence.from(key, StandardCharsets.UTF_8),
                    ByteSequence.from("v".repeat(64 * 1024), StandardCharsets.UTF_8))
                .get(10, TimeUnit.SECONDS)
                .getHeader()
                .getRevision());
      }
    }
    return revisions;
  }

  /** kill returns before the kernel has stopped every thread: wait (bounded) until it has. */
  private static void awaitHeld(String member, long pid) throws Exception {
    Path status = Path.of("/proc/" + pid + "/status");
    Instant deadline = Instant.now().plus(Duration.ofSeconds(10));
    while (!Files.readString(status).matches("(?s).*State:\\s+T.*")) {
      assertThat(Instant.now()).as("%s (pid %s) held", member, pid).isBefore(deadline);
      TimeUnit.MILLISECONDS.sleep(50);
    }
  }

  private static void signal(String signal, long pid) throws Exception {
    Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).start();
    assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(kill.exitValue()).as("kill -%s %s", signal, pid).isZero();
  }

  /** The revision of a member's own store, read from it alone (no quorum needed). */
  private static long serializableRevision(SandboxRunbooks runbooks, String member)
      throws Exception {
    MemberSpec m = runbooks.cluster().member(member);
    try (Client client = Client.builder().endpoints(m.clientUrl()).build()) {
      return client
          .getKVClient()
          .get(
              ByteSequence.from("/", StandardCharsets.UTF_8),
              GetOption.builder().withSerializable(true).withLimit(1).build())
          .get(10, TimeUnit.SECONDS)
          .getHeader()
          .getRevision();
    }
  }

  private static Map<String, ClusterProbe.StoredKey> writeKeys(
      SandboxRunbooks runbooks, String prefix, int count) throws Exception {
    try (ClusterProbe probe = new ClusterProbe(runbooks.cluster())) {
      probe.putMany(prefix, count);
      return probe.dump(0).entrySet().stream()
          .filter(e -> e.getKey().startsWith(prefix))
          .collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
    }
  }

  /**
   * Healthy voters as the inventory lists them, the kept keys there, the lost ones not, hashkv
   * equal.
   */
  private static void assertWholeAgain(
      SandboxRunbooks runbooks,
      List<String> members,
      Map<String, ClusterProbe.StoredKey> kept,
      java.util.Collection<String> lost)
      throws Exception {
    assertThat(runbooks.cluster().members())
        .extracting(MemberSpec::name)
        .containsExactlyElementsOf(members);
    assertThat(runbooks.state().members())
        .allSatisfy(
            m -> {
              assertThat(m.healthy()).as("%s healthy: %s", m.name(), m.errors()).isTrue();
              assertThat(m.learner()).as("%s is a voter", m.name()).isFalse();
            });
    try (ClusterProbe probe = new ClusterProbe(runbooks.cluster())) {
      var listed = probe.members();
      assertThat(listed).extracting(m -> m.getName()).containsExactlyInAnyOrderElementsOf(members);
      Map<String, ClusterProbe.StoredKey> now = probe.dump(0);
      assertThat(now).containsAllEntriesOf(kept);
      if (!lost.isEmpty()) assertThat(now.keySet()).doesNotContainAnyElementsOf(lost);
      // 0: each member's newest revision (nothing writes); after a rebuild with --mark-compacted
      // and no write since, the newest is the compacted one, where 3.4 refuses a hash at its number
      Map<String, Long> hashes = probe.hashKvByMember(0);
      assertThat(hashes).hasSize(members.size());
      assertThat(hashes.values().stream().distinct()).hasSize(1);
    }
  }

  private static void record(SandboxRunbooks runbooks) throws Exception {
    Path out = Path.of("target", "recorded-recover-quorum-history.json");
    Files.createDirectories(out.getParent());
    Files.writeString(
        out,
        runbooks.client().fetchHistory(RecoverQuorumWorkflow.workflowId("sandbox")).toJson(true));
  }
}
