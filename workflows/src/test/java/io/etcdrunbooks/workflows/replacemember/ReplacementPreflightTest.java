package io.etcdrunbooks.workflows.replacemember;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.EtcdMember;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.model.MemberStatus;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ReplacementPreflightTest {

  private static final MemberPlacement M2 =
      new MemberPlacement(
          "m2",
          "10.0.0.2",
          0,
          "https://10.0.0.2:2380",
          "https://10.0.0.2:2379",
          "/var/lib/etcd",
          "/opt/etcd",
          "/etc/etcd");

  @Test
  void aNameOnTheSameHostCountsUpAndSkipsTakenNames() {
    assertThat(ReplacementPreflight.nameOnSameHost("m2", Set.of("m1", "m2", "m3")))
        .isEqualTo("m2-r1");
    assertThat(ReplacementPreflight.nameOnSameHost("m2-r1", Set.of("m1", "m2-r1")))
        .isEqualTo("m2-r2");
    assertThat(ReplacementPreflight.nameOnSameHost("m2", Set.of("m2", "m2-r1", "m2-r2")))
        .isEqualTo("m2-r3");
  }

  @Test
  void aPlacementTakesWhatItLeavesOutFromTheFailedMember() {
    MemberPlacement sameHost = ReplacementPreflight.complete(M2, null, "m2-r1");
    assertThat(sameHost)
        .isEqualTo(
            new MemberPlacement(
                "m2-r1",
                "10.0.0.2",
                0,
                M2.peerUrl(),
                M2.clientUrl(),
                "/var/lib/etcd",
                "/opt/etcd",
                "/etc/etcd"));
    MemberPlacement other =
        ReplacementPreflight.complete(
            M2,
            new MemberPlacement(
                "m4",
                "10.0.0.4",
                0,
                "https://10.0.0.4:2380",
                "https://10.0.0.4:2379",
                null,
                null,
                null),
            "m4");
    assertThat(other.host()).isEqualTo("10.0.0.4");
    assertThat(other.peerUrl()).isEqualTo("https://10.0.0.4:2380");
    assertThat(other.dataDir()).isEqualTo("/var/lib/etcd");
  }

  @Test
  void badInputIsNamedBeforeAnyClusterIsLookedAt() {
    ReplaceMemberRequest request =
        ReplaceMemberRequest.of(
            "prod-1",
            "",
            new MemberPlacement(
                "bad name", "10.0.0.4", 0, "10.0.0.4:2380", null, "relative/dir", null, null),
            RunbookOptions.defaults().withMemberTimeoutSeconds(-1),
            "");
    assertThat(ReplacementPreflight.inputProblems(request))
        .anyMatch(p -> p.contains("failedMember is required"))
        .anyMatch(p -> p.contains("replacement.name"))
        .anyMatch(p -> p.contains("needs its own peerUrl and clientUrl"))
        .anyMatch(p -> p.contains("'10.0.0.4:2380' must look like"))
        .anyMatch(p -> p.contains("must be absolute"))
        .anyMatch(p -> p.contains("timeouts"));
  }

  @Test
  void aHealthyFailedMemberIsRefusedWithoutForceAndAClashingNameAlways() {
    ClusterState state = state(healthy("m1", 1), healthy("m2", 2), healthy("m3", 3));
    List<EtcdMember> etcd =
        List.of(member(1, "m1", false), member(2, "m2", false), member(3, "m3", false));
    MemberPlacement clash =
        ReplacementPreflight.complete(
            M2,
            new MemberPlacement(
                "m3",
                "10.0.0.4",
                0,
                "https://10.0.0.4:2380",
                "https://10.0.0.4:2379",
                null,
                null,
                null),
            "m3");
    assertThat(ReplacementPreflight.clusterProblems(state, etcd, M2, clash, false))
        .anyMatch(p -> p.contains("member m2 is healthy"))
        .anyMatch(p -> p.contains("name 'm3' is already"));
    MemberPlacement fine = ReplacementPreflight.complete(M2, null, "m2-r1");
    assertThat(ReplacementPreflight.clusterProblems(state, etcd, M2, fine, true)).isEmpty();
  }

  @Test
  void twoOfThreeDownIsRefusedNamingTheRecoverQuorumRunbook() {
    ClusterState state =
        new ClusterState(
            "prod-1",
            List.of(healthy("m1", 1), down("m2", 2), down("m3", 3)),
            "",
            "3.5.0",
            List.of(),
            10);
    List<EtcdMember> etcd =
        List.of(member(1, "m1", false), member(2, "m2", false), member(3, "m3", false));
    assertThat(
            ReplacementPreflight.clusterProblems(
                state, etcd, M2, ReplacementPreflight.complete(M2, null, "m2-r1"), false))
        .singleElement()
        .asString()
        .contains("below quorum 2")
        .contains("the way forward is the RecoverQuorum runbook")
        .doesNotContain("RestoreCluster");
  }

  @Test
  void anUnknownMemberOrALearnerInEtcdIsRefused() {
    ClusterState state = state(healthy("m1", 1), down("m2", 2), healthy("m3", 3));
    List<EtcdMember> etcd =
        List.of(
            member(1, "m1", false),
            member(2, "m2", false),
            member(3, "m3", false),
            new EtcdMember(9, "", List.of("https://10.0.0.9:2380"), List.of(), true));
    assertThat(
            ReplacementPreflight.clusterProblems(
                state, etcd, M2, ReplacementPreflight.complete(M2, null, "m2-r1"), false))
        .anyMatch(p -> p.contains("that the inventory does not know"))
        .anyMatch(p -> p.contains("is a learner"));
  }

  private static ClusterState state(MemberStatus... members) {
    return new ClusterState("prod-1", List.of(members), "m1", "3.5.0", List.of(), 10);
  }

  private static MemberStatus healthy(String name, long id) {
    return new MemberStatus(name, id, true, true, "3.5.16", false, 1, 10, 10, 1, List.of());
  }

  private static MemberStatus down(String name, long id) {
    return new MemberStatus(
        name, id, false, false, "", false, 0, 0, 0, 0, List.of("connection refused"));
  }

  private static EtcdMember member(long id, String name, boolean learner) {
    return new EtcdMember(
        id,
        name,
        List.of(name.equals("m2") ? M2.peerUrl() : "https://10.0.0." + id + ":2380"),
        List.of(),
        learner);
  }
}
