package io.etcdrunbooks.activities.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcd.jetcd.Client;
import io.etcdrunbooks.activities.targets.ClusterTargets;
import io.etcdrunbooks.testkit.EtcdReleases;
import io.etcdrunbooks.testkit.Sandbox;
import io.etcdrunbooks.testkit.SandboxSpec;
import io.etcdrunbooks.testkit.TestKeys;
import io.etcdrunbooks.workflows.activities.EtcdActivities.AwaitClusterVersionRequest;
import io.etcdrunbooks.workflows.activities.EtcdActivities.AwaitMemberRequest;
import io.etcdrunbooks.workflows.activities.EtcdActivities.ConsistencyRequest;
import io.etcdrunbooks.workflows.activities.EtcdActivities.KeyspaceDigestRequest;
import io.etcdrunbooks.workflows.activities.EtcdActivities.MoveLeaderRequest;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.ConsistencyReport;
import io.etcdrunbooks.workflows.model.KeyspaceDigest;
import io.etcdrunbooks.workflows.model.MemberStatus;
import io.temporal.failure.ApplicationFailure;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link EtcdActivitiesImpl} against a real 3-member sandbox cluster (members behind SSH, as on
 * hosts); one subclass per etcd version.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
abstract class EtcdActivitiesContract {

  @TempDir static Path dir;
  private Sandbox cluster;
  private EtcdActivitiesImpl activities;
  private EtcdClients clients;

  abstract String version();

  @BeforeAll
  void startCluster() {
    cluster =
        Sandbox.create(
            new SandboxSpec(dir.resolve("shared"), "c1", 3, version()), EtcdReleases.store());
    activities = new EtcdActivitiesImpl(ClusterTargets.etcdOnly(cluster::inventory));
    clients = new EtcdClients(cluster.cluster());
  }

  @AfterAll
  void stopCluster() {
    if (clients != null) clients.close();
    if (cluster != null) cluster.close();
  }

  private ClusterRef ref() {
    return new ClusterRef("c1");
  }

  private Client client() {
    return clients.cluster();
  }

  @Test
  void discoverReportsEveryMemberInInventoryOrderWithIdsVersionsAndOneLeader() {
    ClusterState state = activities.discover(ref());

    assertThat(state.cluster()).isEqualTo("c1");
    assertThat(state.members()).extracting(MemberStatus::name).containsExactly("m1", "m2", "m3");
    assertThat(state.members())
        .allSatisfy(
            m -> {
              assertThat(m.reachable()).isTrue();
              assertThat(m.healthy()).as("healthy %s", m).isTrue();
              assertThat(m.serverVersion()).isEqualTo(version());
              assertThat(m.id()).isNotZero();
              assertThat(m.errors()).isEmpty();
              assertThat(m.raftAppliedIndex()).isPositive();
            });
    assertThat(state.members()).extracting(MemberStatus::id).doesNotHaveDuplicates();
    assertThat(state.members()).filteredOn(MemberStatus::leads).hasSize(1);
    assertThat(state.leader()).map(MemberStatus::name).contains(state.leaderName());
    assertThat(state.clusterVersion())
        .isEqualTo(version().substring(0, version().lastIndexOf('.')) + ".0");
    assertThat(state.alarms()).isEmpty();
    assertThat(state.revision()).isPositive();
  }

  @Test
  void discoverOfAClusterNotInTheInventoryFailsAsUnknownCluster() {
    assertThatThrownBy(() -> activities.discover(new ClusterRef("nope")))
        .isInstanceOfSatisfying(
            ApplicationFailure.class,
            f -> {
              assertThat(f.getType()).isEqualTo("UnknownCluster");
              assertThat(f.isNonRetryable()).isTrue();
              assertThat(f.getOriginalMessage()).contains("nope").contains("c1");
            });
  }

  @Test
  void checkConsistencyOfAHealthyClusterFindsEqualHashesAtOneRevision() throws Exception {
    long written = TestKeys.put(client(), "/consistency/", 300, "v");

    ConsistencyReport report = activities.checkConsistency(ref());

    assertThat(report.raftIndexesConverged()).isTrue();
    assertThat(report.revision()).isGreaterThanOrEqualTo(written);
    assertThat(report.hashByMember()).containsOnlyKeys("m1", "m2", "m3");
    assertThat(report.hashesEqual()).as("hashes %s", report.hashByMember()).isTrue();
    assertThat(report.raftIndexByMember()).containsOnlyKeys("m1", "m2", "m3");
  }

  @Test
  void checkConsistencyAfterACompactionComparesHashesAtTheSameCompactionOnEveryMember()
      throws Exception {
    long written = TestKeys.put(client(), "/compacted/", 200, "v1");
    TestKeys.put(client(), "/compacted/", 200, "v2");
    client()
        .getKVClient()
        .compact(
            written,
            io.etcd.jetcd.options.CompactOption.builder().withCompactPhysical(true).build())
        .get(30, TimeUnit.SECONDS);

    ConsistencyReport report = activities.checkConsistency(ref());

    assertThat(report.revision()).isGreaterThan(written);
    assertThat(report.hashesEqual()).as("hashes %s", report.hashByMember()).isTrue();
  }

  @Test
  void checkConsistencyAtHashesTheNamedMembersAtTheRevisionAsitWasThen() throws Exception {
    long written = TestKeys.put(client(), "/at-revision/", 100, "v");
    ConsistencyReport every =
        activities.checkConsistencyAt(new ConsistencyRequest("c1", written, List.of()));
    assertThat(every.revision()).isEqualTo(written);
    assertThat(every.hashByMember()).containsOnlyKeys("m1", "m2", "m3");
    assertThat(every.hashesEqual()).as("hashes %s", every.hashByMember()).isTrue();

    TestKeys.put(client(), "/at-revision-later/", 10, "v");
    ConsistencyReport one =
        activities.checkConsistencyAt(new ConsistencyRequest("c1", written, List.of("m2")));
    assertThat(one.hashByMember()).containsOnlyKeys("m2");
    assertThat(one.hashByMember().get("m2")).isEqualTo(every.hashByMember().get("m2"));
    assertThat(one.compactRevision()).isEqualTo(every.compactRevision());
    assertThat(one.raftIndexByMember()).containsOnlyKeys("m1", "m2", "m3");

    ConsistencyReport now =
        activities.checkConsistencyAt(new ConsistencyRequest("c1", 0, List.of("m2")));
    assertThat(now.revision()).isGreaterThan(written);
    assertThat(now.hashByMember().get("m2")).isNotEqualTo(one.hashByMember().get("m2"));
  }

  @Test
  void keyspaceDigestIsStableAtARevisionAndChangesWithAnOverwrite() throws Exception {
    TestKeys.put(client(), "/digest/", 2500, "v");
    KeyspaceDigest before = activities.keyspaceDigest(new KeyspaceDigestRequest("c1", 0));

    TestKeys.put(client(), "/digest-more/", 50, "v");
    KeyspaceDigest sameRevision =
        activities.keyspaceDigest(new KeyspaceDigestRequest("c1", before.revision()));
    assertThat(sameRevision).isEqualTo(before);
    assertThat(before.keyCount()).isGreaterThanOrEqualTo(2500);

    long overwritten = TestKeys.put(client(), "/digest/00007", "changed");
    KeyspaceDigest after = activities.keyspaceDigest(new KeyspaceDigestRequest("c1", 0));
    assertThat(after.revision()).isEqualTo(overwritten);
    assertThat(after.keyCount()).isEqualTo(before.keyCount() + 50);
    assertThat(after.sha256()).isNotEqualTo(before.sha256());

    // paging: small pages give the same digest as the default ones
    KeyspaceDigest smallPages =
        new KeyspaceReader(client().getKVClient(), 7).digest(after.revision(), progress -> {});
    assertThat(smallPages).isEqualTo(after);
  }

  @Test
  void keyspaceDigestOfLargeValuesReadsSmallPagesAndMatchesOneKeyPages() throws Exception {
    String large = "x".repeat(700 * 1024);
    long revision = 0;
    for (int i = 0; i < 24; i++) revision = TestKeys.put(client(), "/large/" + i, large + i);

    KeyspaceDigest pagedBySize =
        activities.keyspaceDigest(new KeyspaceDigestRequest("c1", revision));
    KeyspaceDigest oneKeyPages =
        new KeyspaceReader(client().getKVClient(), 1).digest(revision, progress -> {});
    assertThat(pagedBySize).isEqualTo(oneKeyPages);
    assertThat(pagedBySize.revision()).isEqualTo(revision);
  }

  @Test
  void keyspaceDigestAtAFutureRevisionFailsAsInvalidRequest() {
    assertThatThrownBy(
            () -> activities.keyspaceDigest(new KeyspaceDigestRequest("c1", 1_000_000_000L)))
        .isInstanceOfSatisfying(
            ApplicationFailure.class, f -> assertThat(f.getType()).isEqualTo("InvalidRequest"));
  }

  @Test
  void moveLeaderHandsLeadershipToAFollowerAndDoesNothingWhenItAlreadyLeads() {
    ClusterState state = activities.discover(ref());
    String follower =
        state.members().stream().filter(m -> !m.leads()).findFirst().orElseThrow().name();

    activities.moveLeader(new MoveLeaderRequest("c1", follower));
    assertThat(activities.discover(ref()).leaderName()).isEqualTo(follower);

    long termBefore = raftTerm(follower);
    activities.moveLeader(new MoveLeaderRequest("c1", follower));
    assertThat(activities.discover(ref()).leaderName()).isEqualTo(follower);
    assertThat(raftTerm(follower)).as("no new election").isEqualTo(termBefore);
  }

  private long raftTerm(String member) {
    return EtcdClients.await(
            client()
                .getMaintenanceClient()
                .statusMember(EtcdClients.target(cluster.cluster().member(member))),
            "status")
        .getRaftTerm();
  }

  @Test
  void awaitMemberReadyReturnsTheStatusOfAReadyMember() {
    MemberStatus status =
        activities.awaitMemberReady(new AwaitMemberRequest("c1", "m2", version(), 10));
    assertThat(status.name()).isEqualTo("m2");
    assertThat(status.serverVersion()).isEqualTo(version());
  }

  @Test
  void
      awaitMemberReadyWithAnotherVersionExpectedFailsWithinItsTimeoutNamingTheMemberAndWhatItRuns() {
    long start = System.nanoTime();
    assertThatThrownBy(
            () -> activities.awaitMemberReady(new AwaitMemberRequest("c1", "m3", "9.9.9", 2)))
        .isInstanceOfSatisfying(
            ApplicationFailure.class,
            f -> {
              assertThat(f.getType()).isEqualTo("MemberNotReady");
              assertThat(f.getOriginalMessage())
                  .contains("'m3'")
                  .contains("9.9.9")
                  .contains("runs " + version())
                  .contains("Next:");
            });
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
  }

  @Test
  void awaitClusterVersionReturnsTheClusterVersionOnceReached() {
    String minor = version().substring(0, version().lastIndexOf('.'));
    assertThat(activities.awaitClusterVersion(new AwaitClusterVersionRequest("c1", minor, 10)))
        .isEqualTo(minor + ".0");
  }

  @Test
  void awaitClusterVersionOfALaterMinorFailsWithinItsTimeout() {
    assertThatThrownBy(
            () -> activities.awaitClusterVersion(new AwaitClusterVersionRequest("c1", "3.9", 1)))
        .isInstanceOfSatisfying(
            ApplicationFailure.class,
            f -> assertThat(f.getType()).isEqualTo("ClusterVersionNotReached"));
  }

  @Test
  void discoverWithAKilledFollowerReportsItUnreachableByNameAndTheOthersReachable() {
    try (Sandbox own =
        Sandbox.create(
            new SandboxSpec(dir.resolve("killed"), "c2", 3, version()), EtcdReleases.store())) {
      EtcdActivitiesImpl ownActivities =
          new EtcdActivitiesImpl(ClusterTargets.etcdOnly(own::inventory));
      ClusterState before = ownActivities.discover(new ClusterRef("c2"));
      String victim =
          before.members().stream().filter(m -> !m.leads()).findFirst().orElseThrow().name();
      own.kill(victim);

      long start = System.nanoTime();
      ClusterState state = ownActivities.discover(new ClusterRef("c2"));

      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(15));
      MemberStatus killed = state.member(victim).orElseThrow();
      assertThat(killed.reachable()).isFalse();
      assertThat(killed.healthy()).isFalse();
      assertThat(killed.serverVersion()).isEmpty();
      assertThat(killed.errors()).singleElement().asString().contains("'" + victim + "'");
      assertThat(state.members())
          .filteredOn(m -> !m.name().equals(victim))
          .allSatisfy(m -> assertThat(m.reachable()).isTrue());
      assertThat(state.leaderName()).isEqualTo(before.leaderName());

      // a second member gone: quorum lost. The reads that go through raft (member list, alarms,
      // auth status, revision) are not waited for once the survivor says it sees no leader
      String survivor = before.leaderName();
      own.cluster().members().stream()
          .map(io.etcdrunbooks.inventory.MemberSpec::name)
          .filter(m -> !m.equals(victim) && !m.equals(survivor))
          .forEach(own::kill);
      ClusterState lost = ownActivities.discover(new ClusterRef("c2"));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (!lost.leaderName().isEmpty() && System.nanoTime() < deadline) {
        lost = ownActivities.discover(new ClusterRef("c2")); // until its leader steps down
      }
      assertThat(lost.leaderName()).as("a leader without quorum steps down").isEmpty();
      assertThat(lost.member(survivor).orElseThrow().reachable()).isTrue();
      assertThat(lost.alarmsUnreadReason())
          .hasValueSatisfying(
              why -> assertThat(why).contains("no member that answers sees a leader"));
      assertThat(lost.revision()).isZero();
    }
  }
}
