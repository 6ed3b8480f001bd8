package io.etcdrunbooks.workflows.phases;

import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.ConsistencyReport;
import io.etcdrunbooks.workflows.model.EtcdVersion;
import io.etcdrunbooks.workflows.model.MemberStatus;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Checks of a discovered cluster that every runbook makes before and after its change. Pure: every
 * answer comes from discovered state.
 */
public final class ClusterChecks {

  private ClusterChecks() {}

  /**
   * Problems with the members themselves: reachability, health, alarms, each saying to mend it
   * before upgrading. Empty when all is well.
   */
  public static List<String> memberProblems(ClusterState state) {
    return memberProblems(state, "upgrading");
  }

  /**
   * As {@link #memberProblems(ClusterState)}, for a runbook about to do something else ({@code
   * doing}: "migrating", "replacing certificates"), or "" for a postflight, which only reports.
   */
  public static List<String> memberProblems(ClusterState state, String doing) {
    String before = doing.isEmpty() ? "" : " before " + doing;
    List<String> problems = new ArrayList<>();
    for (MemberStatus m : state.members()) {
      if (!m.reachable()) {
        problems.add(
            "member %s is unreachable (%s): bring it back or replace it%s"
                .formatted(m.name(), errors(m), before));
      } else if (!m.healthy()) {
        problems.add(
            "member %s is unhealthy (%s): fix it%s".formatted(m.name(), errors(m), before));
      }
      if (m.learner()) {
        problems.add("member " + m.name() + " is a learner: promote or remove it" + before);
      }
    }
    if (state.leaderName().isEmpty()) {
      problems.add(
          "no member sees a leader: the cluster has no quorum"
              + (doing.isEmpty() ? "" : "; " + doing + " now would make it worse"));
    }
    state
        .alarmsUnreadReason()
        .ifPresent(
            why ->
                problems.add(
                    "the alarm list could not be read (%s): a raised NOSPACE or CORRUPT alarm cannot be ruled out; check `etcdctl alarm list` and the members' logs"
                        .formatted(why)));
    for (String alarm : state.alarms()) {
      problems.add(
          ("alarm raised: %s (NOSPACE: compact, defragment and disarm; CORRUPT: replace the corrupt"
                  + " member from a healthy one)"
                  + before)
              .formatted(alarm));
    }
    return problems;
  }

  /** Problems with data agreement between members. */
  public static List<String> consistencyProblems(ConsistencyReport report) {
    List<String> problems = new ArrayList<>();
    if (!report.raftIndexesConverged()) {
      problems.add(
          "raft indexes do not converge %s: a member is lagging; wait for it to catch up or check its disk and network"
              .formatted(report.raftIndexByMember()));
    }
    if (!report.hashesEqual()) {
      Map<Long, List<String>> byHash =
          report.hashByMember().entrySet().stream()
              .collect(
                  Collectors.groupingBy(
                      Map.Entry::getValue,
                      Collectors.mapping(Map.Entry::getKey, Collectors.toList())));
      problems.add(
          ("hashkv differs between members at revision %s %s (groups %s): the data is inconsistent;"
                  + " do not upgrade, investigate corruption first")
              .formatted(report.revision(), report.hashByMember(), byHash.values()));
    }
    return problems;
  }

  private static String errors(MemberStatus m) {
    return String.join("; ", m.errors());
  }

  /** The lowest server version running: where the ladder starts. */
  public static String runningVersion(ClusterState state) {
    return state.members().stream()
        .flatMap(m -> EtcdVersion.find(m.serverVersion()).stream())
        .min(Comparator.naturalOrder())
        .map(EtcdVersion::toString)
        .orElse("");
  }
}
