package io.etcdrunbooks.workflows.phases;

import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.ConsistencyReport;
import io.etcdrunbooks.workflows.model.EtcdMember;
import io.etcdrunbooks.workflows.model.MemberStatus;
import io.temporal.failure.ApplicationFailure;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The POSTFLIGHT every changing runbook ends with: the cluster discovered again, every member
 * healthy, the runbook's own expectations, and raft indexes and hashkv equal on all members.
 */
public final class PostflightCheck {

  private PostflightCheck() {}

  /**
   * @param runbookChecks the runbook's own expectations of the cluster it leaves (versions,
   *     membership)
   */
  public static Found check(RunContext ctx, Function<ClusterState, List<String>> runbookChecks) {
    return check(ctx, runbookChecks, true, () -> ctx.activities().etcd.checkConsistency(ctx.ref()));
  }

  /**
   * As {@link #check}, with the raft and hashkv comparison the runbook started earlier (it changed
   * nothing since, and read it while waiting on etcd).
   */
  public static Found check(
      RunContext ctx,
      Function<ClusterState, List<String>> runbookChecks,
      Supplier<ConsistencyReport> consistency) {
    return check(ctx, runbookChecks, true, consistency);
  }

  /**
   * As {@link #check}, but raft indexes and hashkv are compared only when the members and the
   * runbook's expectations found nothing: with a member down or a learner left, the comparison
   * would wait for it in vain.
   */
  public static Found checkThenCompare(
      RunContext ctx, Function<ClusterState, List<String>> runbookChecks) {
    return check(
        ctx, runbookChecks, false, () -> ctx.activities().etcd.checkConsistency(ctx.ref()));
  }

  private static Found check(
      RunContext ctx,
      Function<ClusterState, List<String>> runbookChecks,
      boolean compareAlways,
      Supplier<ConsistencyReport> compare) {
    ClusterState state =
        ctx.progress().record("discover", () -> ctx.activities().etcd.discover(ctx.ref()));
    List<String> problems = new ArrayList<>(ClusterChecks.memberProblems(state, ""));
    problems.addAll(runbookChecks.apply(state));
    if (compareAlways || problems.isEmpty()) {
      ConsistencyReport consistency = ctx.progress().record("consistency", compare);
      problems.addAll(ClusterChecks.consistencyProblems(consistency));
    }
    return new Found(state, problems);
  }

  /**
   * The check of a runbook that changed the membership: etcd's member list as long as the
   * inventory's (and {@code target} when positive). The list read is handed to {@code seen}, for
   * the runbook's result.
   */
  public static Function<ClusterState, List<String>> membersAsInventory(
      RunContext ctx, int target, Consumer<List<EtcdMember>> seen) {
    return state -> {
      List<EtcdMember> members =
          ctx.progress()
              .record("etcd member list", () -> ctx.activities().membership.listMembers(ctx.ref()));
      seen.accept(members);
      int inventory = state.members().size();
      if (members.size() == inventory && (target <= 0 || inventory == target)) return List.of();
      return List.of(
          "etcd has %d members %s, the inventory %d %s%s"
              .formatted(
                  members.size(),
                  members.stream().map(m -> m.name().isEmpty() ? m.hexId() : m.name()).toList(),
                  inventory,
                  state.members().stream().map(MemberStatus::name).toList(),
                  target > 0 ? "; the target was " + target : ""));
    };
  }

  /**
   * @param what the runbook and its object, "upgrade of prod-1"
   */
  public static ApplicationFailure failed(String what, List<String> problems) {
    return FailureType.PostflightFailed.nonRetryable(found(what, problems));
  }

  /**
   * As {@link #failed(String, List)}, for a runbook whose postflight failure is its own type,
   * saying what it left as it was and why.
   *
   * @param leftAsItWas for example "The kube-apiservers were left stopped."
   */
  public static ApplicationFailure failed(
      String what, List<String> problems, FailureType type, String leftAsItWas) {
    return type.nonRetryable(found(what, problems) + "\n" + leftAsItWas);
  }

  private static String found(String what, List<String> problems) {
    return what + " finished but postflight found:\n  - " + String.join("\n  - ", problems);
  }

  /** The cluster as the postflight found it, and what is wrong with it (empty: all is well). */
  public record Found(ClusterState state, List<String> problems) {}
}
