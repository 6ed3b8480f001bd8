package io.etcdrunbooks.workflows.phases;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.MemberStatus;
import java.util.List;
import org.junit.jupiter.api.Test;

class QuorumGuardTest {

  private static MemberStatus member(String name, boolean healthy) {
    return new MemberStatus(
        name,
        name.hashCode(),
        healthy,
        healthy,
        "3.4.23",
        false,
        0,
        10,
        10,
        1,
        healthy ? List.of() : List.of("connection refused"));
  }

  @Test
  void stoppingOneOfThreeHealthyMembersKeepsQuorum() {
    ClusterState state =
        new ClusterState(
            "c",
            List.of(member("m1", true), member("m2", true), member("m3", true)),
            "m1",
            "3.4.0",
            List.of(),
            5);
    assertThat(QuorumGuard.whyUnsafeToStop(state, "m2")).isEmpty();
  }

  @Test
  void stoppingAHealthyMemberWhileAnotherIsDownWouldCostQuorum() {
    ClusterState state =
        new ClusterState(
            "c",
            List.of(member("m1", true), member("m2", true), member("m3", false)),
            "m1",
            "3.4.0",
            List.of(),
            5);
    assertThat(QuorumGuard.whyUnsafeToStop(state, "m2"))
        .get()
        .asString()
        .contains("stopping m2", "below quorum 2", "m3 (connection refused)");
  }

  @Test
  void stoppingTheDownMemberItselfIsSafe() {
    ClusterState state =
        new ClusterState(
            "c",
            List.of(member("m1", true), member("m2", true), member("m3", false)),
            "m1",
            "3.4.0",
            List.of(),
            5);
    assertThat(QuorumGuard.whyUnsafeToStop(state, "m3")).isEmpty();
  }
}
