package io.etcdrunbooks.workflows.phases;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.ConsistencyReport;
import io.etcdrunbooks.workflows.model.MemberStatus;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Checks that real clusters cannot easily be brought into (diverging hashes, lagging raft) are
 * tested on reports.
 */
class ClusterChecksTest {

  private static MemberStatus healthy(String name, String version) {
    return new MemberStatus(
        name, name.hashCode(), true, true, version, false, 1024, 100, 100, 7, List.of());
  }

  @Test
  void aHealthyClusterHasNoProblemsAndStartsFromItsLowestVersion() {
    ClusterState state =
        new ClusterState(
            "c",
            List.of(healthy("m1", "3.5.16"), healthy("m2", "3.4.23"), healthy("m3", "3.4.23")),
            "m1",
            "3.4.0",
            List.of(),
            10);
    assertThat(ClusterChecks.memberProblems(state)).isEmpty();
    assertThat(ClusterChecks.runningVersion(state)).isEqualTo("3.4.23");
  }

  @Test
  void namesAlarmsLearnersAndAMissingLeader() {
    MemberStatus learner =
        new MemberStatus("m3", 3, true, true, "3.5.16", true, 0, 100, 100, 0, List.of());
    ClusterState state =
        new ClusterState(
            "c",
            List.of(healthy("m1", "3.5.16"), healthy("m2", "3.5.16"), learner),
            "",
            "3.5.0",
            List.of("NOSPACE on m2"),
            10);
    assertThat(String.join("\n", ClusterChecks.memberProblems(state)))
        .contains(
            "member m3 is a learner", "no member sees a leader", "alarm raised: NOSPACE on m2");
  }

  @Test
  void eachRunbookNamesWhatItWouldDoAndAPostflightOnlyReports() {
    MemberStatus down =
        new MemberStatus("m2", 2, false, false, "", false, 0, 0, 0, 0, List.of("refused"));
    ClusterState state =
        new ClusterState("c", List.of(healthy("m1", "3.5.16"), down), "m1", "3.5.0", List.of(), 10);
    assertThat(ClusterChecks.memberProblems(state))
        .containsExactly(
            "member m2 is unreachable (refused): bring it back or replace it before upgrading");
    assertThat(ClusterChecks.memberProblems(state, "migrating"))
        .containsExactly(
            "member m2 is unreachable (refused): bring it back or replace it before migrating");
    assertThat(ClusterChecks.memberProblems(state, ""))
        .containsExactly("member m2 is unreachable (refused): bring it back or replace it");
  }

  @Test
  void anAlarmListThatCouldNotBeReadIsAProblemNotAnEmptyList() {
    List<MemberStatus> members =
        List.of(healthy("m1", "3.5.16"), healthy("m2", "3.5.16"), healthy("m3", "3.5.16"));
    ClusterState unread =
        new ClusterState(
            "c",
            members,
            "m1",
            "3.5.0",
            List.of(),
            10,
            "alarms of cluster 'c': DEADLINE_EXCEEDED",
            false,
            null);
    assertThat(ClusterChecks.memberProblems(unread))
        .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
        .contains("the alarm list could not be read", "DEADLINE_EXCEEDED", "etcdctl alarm list");
    // histories recorded before the field have no value: the list was read
    assertThat(
            ClusterChecks.memberProblems(
                new ClusterState("c", members, "m1", "3.5.0", List.of(), 10, null, null, null)))
        .isEmpty();
  }

  @Test
  void differingHashesAndLaggingRaftIndexesAreRefusedWithTheMembersNamed() {
    Map<String, Long> hashes = new LinkedHashMap<>(Map.of("m1", 11L, "m2", 11L, "m3", 99L));
    ConsistencyReport report =
        new ConsistencyReport(42, hashes, Map.of("m1", 500L, "m2", 500L, "m3", 20L), false);
    String problems = String.join("\n", ClusterChecks.consistencyProblems(report));
    assertThat(problems)
        .contains(
            "hashkv differs between members at revision 42",
            "m3=99",
            "raft indexes do not converge",
            "m3=20");
  }

  @Test
  void equalHashesAndConvergedIndexesPass() {
    ConsistencyReport report =
        new ConsistencyReport(
            42, Map.of("m1", 11L, "m2", 11L), Map.of("m1", 500L, "m2", 500L), true);
    assertThat(ClusterChecks.consistencyProblems(report)).isEmpty();
  }
}
