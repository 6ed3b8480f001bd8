package io.etcdrunbooks.workflows.scale;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.EtcdMember;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.model.MemberStatus;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ScalePlanningTest {

  private static final RunbookOptions OPTIONS = RunbookOptions.defaults();

  @Test
  void shrinkingTakesMembersThatDoNotAnswerFirstThenFollowersFromTheEndAndTheLeaderLast() {
    List<MemberPlacement> inventory = inventory(5);
    ClusterState state = state(5, "m5", "m2");

    ScalePlanning.Plan plan =
        ScalePlanning.plan(ScaleClusterRequest.shrinking("c", 3, OPTIONS), inventory, state);

    assertThat(plan.remove()).extracting(MemberPlacement::name).containsExactly("m2", "m4");
    assertThat(plan.add()).isEmpty();
  }

  @Test
  void namedMembersAreRemovedAndThoseGoneAlreadyCountAsRemoved() {
    List<MemberPlacement> inventory = inventory(4);
    ClusterState state = state(4, "m1");
    ScaleClusterRequest request =
        ScaleClusterRequest.shrinking("c", 3, OPTIONS).removing(List.of("m5", "m4"));

    ScalePlanning.Plan plan = ScalePlanning.plan(request, inventory, state);

    assertThat(plan.remove()).extracting(MemberPlacement::name).containsExactly("m4");
    assertThat(ScalePlanning.problems(request, inventory, state, etcd(4), plan)).isEmpty();
  }

  @Test
  void growingSkipsNewMembersTheInventoryHasAlreadyAndTakesEmptyPathsFromTheFirstMember() {
    List<MemberPlacement> inventory = inventory(4);
    MemberPlacement m5 =
        new MemberPlacement("m5", "h5", 0, url(5, 2380), url(5, 2379), null, null, null);
    ScaleClusterRequest request =
        ScaleClusterRequest.growing("c", 5, List.of(inventory.get(3), m5), OPTIONS);

    ScalePlanning.Plan plan = ScalePlanning.plan(request, inventory, state(4, "m1"));

    assertThat(plan.add()).extracting(MemberPlacement::name).containsExactly("m5");
    assertThat(plan.add().get(0).dataDir()).isEqualTo("/var/lib/etcd");
    assertThat(plan.add().get(0).host()).isEqualTo("h5");
    assertThat(ScalePlanning.problems(request, inventory, state(4, "m1"), etcd(4), plan)).isEmpty();
  }

  @Test
  void growingRefusesMissingOrClashingNewMembersAndAMemberThatStaysDown() {
    List<MemberPlacement> inventory = inventory(3);
    MemberPlacement clash =
        new MemberPlacement("m4", "h4", 0, url(2, 2380), url(4, 2379), null, null, null);
    ScaleClusterRequest request = ScaleClusterRequest.growing("c", 5, List.of(clash), OPTIONS);
    ClusterState state = state(3, "m1", "m3");

    List<String> problems =
        ScalePlanning.problems(
            request, inventory, state, etcd(3), ScalePlanning.plan(request, inventory, state));

    assertThat(problems)
        .anyMatch(p -> p.contains("needs 2 new member(s) in newMembers, 1 given"))
        .anyMatch(p -> p.contains("URL " + url(2, 2380) + " is already used by member 'm2'"))
        .anyMatch(p -> p.startsWith("member m3 is unreachable"));
  }

  @Test
  void aMemberThatIsDownMayBeRemovedButNotOneThatWouldCostQuorum() {
    ClusterState m2Down = state(3, "m1", "m2");
    assertThat(ScalePlanning.whyUnsafeToRemove(m2Down, "m2")).isEmpty();
    assertThat(ScalePlanning.whyUnsafeToRemove(m2Down, "m3"))
        .get()
        .asString()
        .contains("removing m3 would leave 1 healthy voting member(s) [m1] of 2, below quorum 2");
  }

  @Test
  void inputProblemsNameEachField() {
    assertThat(ScalePlanning.inputProblems(ScaleClusterRequest.shrinking("c", 1, OPTIONS)))
        .anyMatch(p -> p.contains("targetSize must be odd and at least 3, got 1"));
    MemberPlacement noUrls = new MemberPlacement("m4", "h4", 0, null, "ftp://x", "rel", null, null);
    assertThat(
            ScalePlanning.inputProblems(
                ScaleClusterRequest.growing("c", 5, List.of(noUrls, noUrls), OPTIONS)))
        .anyMatch(p -> p.contains("needs a peerUrl and a clientUrl"))
        .anyMatch(p -> p.contains("path 'rel' must be absolute"))
        .anyMatch(p -> p.contains("newMembers names 'm4' twice"));
  }

  private static String url(int n, int port) {
    return "http://10.0.0." + n + ":" + port;
  }

  private static List<MemberPlacement> inventory(int size) {
    List<MemberPlacement> members = new ArrayList<>();
    for (int i = 1; i <= size; i++)
      members.add(
          new MemberPlacement(
              "m" + i,
              "h" + i,
              22,
              url(i, 2380),
              url(i, 2379),
              "/var/lib/etcd",
              "/opt/etcd",
              "/etc/etcd"));
    return members;
  }

  private static List<EtcdMember> etcd(int size) {
    List<EtcdMember> members = new ArrayList<>();
    for (int i = 1; i <= size; i++)
      members.add(new EtcdMember(i, "m" + i, List.of(url(i, 2380)), List.of(url(i, 2379)), false));
    return members;
  }

  /** {@code size} members on 3.5.30, {@code leader} leading, {@code down} unreachable. */
  private static ClusterState state(int size, String leader, String... down) {
    List<MemberStatus> members = new ArrayList<>();
    long leaderId = Long.parseLong(leader.substring(1));
    for (int i = 1; i <= size; i++) {
      boolean up = !List.of(down).contains("m" + i);
      members.add(
          new MemberStatus(
              "m" + i,
              up ? i : 0,
              up,
              up,
              up ? "3.5.30" : "",
              false,
              0,
              10,
              10,
              up ? leaderId : 0,
              up ? List.of() : List.of("connection refused")));
    }
    return new ClusterState("c", members, leader, "3.5.0", List.of(), 10);
  }
}
