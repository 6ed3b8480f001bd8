package io.etcdrunbooks.workflows.phases;

import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.MemberStatus;
import java.util.List;
import java.util.Optional;

/** Refuses to take a member down when the members left would not hold quorum. */
public final class QuorumGuard {

  private QuorumGuard() {}

  /** Why stopping {@code member} would cost quorum, or empty when it is safe. */
  public static Optional<String> whyUnsafeToStop(ClusterState state, String member) {
    List<MemberStatus> voters = state.members().stream().filter(m -> !m.learner()).toList();
    int quorum = voters.size() / 2 + 1;
    List<String> healthyOthers =
        voters.stream()
            .filter(m -> !m.name().equals(member) && m.healthy())
            .map(MemberStatus::name)
            .toList();
    if (healthyOthers.size() >= quorum) {
      return Optional.empty();
    }
    List<String> unhealthy =
        voters.stream()
            .filter(m -> !m.name().equals(member) && !m.healthy())
            .map(
                m ->
                    m.name()
                        + (m.errors().isEmpty() ? "" : " (" + String.join("; ", m.errors()) + ")"))
            .toList();
    return Optional.of(
        ("stopping %s would leave %s healthy voting member(s) of %s, below quorum %s; unhealthy:"
                + " %s. Bring those members back (or replace them) before going on")
            .formatted(member, healthyOthers.size(), voters.size(), quorum, unhealthy));
  }
}
