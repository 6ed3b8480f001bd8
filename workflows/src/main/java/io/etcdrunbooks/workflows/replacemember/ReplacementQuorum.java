package io.etcdrunbooks.workflows.replacemember;

import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.EtcdMember;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.model.MemberStatus;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/** Whether the members left without the failed one can carry a membership change. */
final class ReplacementQuorum {

  /**
   * Where a cluster that lost quorum goes instead: not a restore, which loses every newer write.
   */
  private static final String RECOVER_QUORUM =
      "the RecoverQuorum runbook (it rebuilds the cluster from the surviving member with the"
          + " highest applied index, and restores the newest verified backup only when none"
          + " survives";

  private ReplacementQuorum() {}

  /** Whether the voting members other than the failed one hold quorum of the current membership. */
  static Optional<String> problem(
      ClusterState state, List<EtcdMember> etcdMembers, MemberPlacement failed) {
    return problem(
        state,
        etcdMembers,
        etcdMembers.stream().filter(m -> m.hasPeerUrl(failed.peerUrl())).findFirst());
  }

  /**
   * Whether enough voting members other than the failed one are up to hold quorum, so that a
   * missing leader is an election under way (a member that just died may have led) rather than lost
   * quorum.
   */
  static boolean electionMayHelp(
      ClusterState state, List<EtcdMember> etcdMembers, MemberPlacement failed) {
    List<EtcdMember> voters = voters(etcdMembers);
    Set<Long> reachable = ids(state, MemberStatus::reachable);
    long up =
        voters.stream()
            .filter(v -> !v.hasPeerUrl(failed.peerUrl()) && reachable.contains(v.id()))
            .count();
    return !voters.isEmpty() && up >= voters.size() / 2 + 1;
  }

  static Optional<String> problem(
      ClusterState state, List<EtcdMember> etcdMembers, Optional<EtcdMember> failed) {
    List<EtcdMember> voters = voters(etcdMembers);
    if (voters.isEmpty()) {
      return Optional.of(
          "no member answers the member list: the cluster has lost quorum or every member is down."
              + " A member replacement needs a working cluster; the way forward is "
              + RECOVER_QUORUM
              + ")");
    }
    Set<Long> healthyIds = ids(state, MemberStatus::healthy);
    List<String> healthyOthers =
        voters.stream()
            .filter(v -> failed.map(f -> f.id() != v.id()).orElse(true))
            .filter(v -> healthyIds.contains(v.id()))
            .map(v -> v.name().isEmpty() ? v.hexId() : v.name())
            .toList();
    int quorum = voters.size() / 2 + 1;
    if (healthyOthers.size() >= quorum && !state.leaderName().isEmpty()) return Optional.empty();
    return Optional.of(
        ("without the failed member only %d of %d voting members are healthy %s, below quorum %d"
                + " (down or unhealthy: %s). Removing or adding members needs quorum, so nothing"
                + " was touched; the way forward is %s), or bring enough of them back first")
            .formatted(
                healthyOthers.size(),
                voters.size(),
                healthyOthers,
                quorum,
                down(state),
                RECOVER_QUORUM));
  }

  private static List<String> down(ClusterState state) {
    return state.members().stream()
        .filter(m -> !m.healthy())
        .map(
            m ->
                m.name() + (m.errors().isEmpty() ? "" : " (" + String.join("; ", m.errors()) + ")"))
        .toList();
  }

  private static List<EtcdMember> voters(List<EtcdMember> etcdMembers) {
    return etcdMembers.stream().filter(m -> !m.learner()).toList();
  }

  private static Set<Long> ids(
      ClusterState state, java.util.function.Predicate<MemberStatus> which) {
    return state.members().stream().filter(which).map(MemberStatus::id).collect(Collectors.toSet());
  }
}
