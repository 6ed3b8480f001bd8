package io.etcdrunbooks.workflows.phases;

import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.ProgressTracker;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.EtcdMember;
import io.temporal.failure.ActivityFailure;
import java.util.List;
import java.util.function.Predicate;

/**
 * The DISCOVER phase every runbook opens with: the cluster as its members report it, or a refusal
 * naming why not.
 */
public final class Discovery {

  private Discovery() {}

  /**
   * Refuses when the inventory has no such cluster; any other failure to discover carries on as it
   * is.
   *
   * @param what the runbook and its object, for the refusal ("upgrade of prod-1")
   * @param refused the runbook's refusal type
   */
  public static ClusterState discoverOrRefuse(
      Activities activities,
      ProgressTracker progress,
      String cluster,
      String what,
      FailureType refused) {
    return discover(
        activities, progress, cluster, what, refused, FailureType.UnknownCluster::isTypeOf);
  }

  /**
   * Refuses whatever kept the cluster from being discovered (no such cluster, or no member
   * answering after the retries): for a runbook that has nothing to do on a cluster it cannot see,
   * and has always said so as a refusal.
   */
  public static ClusterState discoverOrRefuseAnyFailure(
      Activities activities,
      ProgressTracker progress,
      String cluster,
      String what,
      FailureType refused) {
    return discover(activities, progress, cluster, what, refused, failure -> true);
  }

  private static ClusterState discover(
      Activities activities,
      ProgressTracker progress,
      String cluster,
      String what,
      FailureType refused,
      Predicate<ActivityFailure> refuses) {
    try {
      ClusterState state =
          progress.record("discover", () -> activities.etcd.discover(new ClusterRef(cluster)));
      // a member RecoverQuorum fenced that answered again: discovery stopped it, the run says so
      state.fencedMembersBack().forEach(found -> progress.run(found, () -> {}));
      return state;
    } catch (ActivityFailure e) {
      if (refuses.test(e)) throw Refusal.of(what, List.of(Failures.rootMessage(e)), refused);
      throw e;
    }
  }

  /** etcd's member list, or none when no member answers it (the quorum checks then say why). */
  public static List<EtcdMember> etcdMembersIfAnswered(RunContext ctx) {
    try {
      return ctx.progress()
          .record("etcd member list", () -> ctx.activities().membership.listMembers(ctx.ref()));
    } catch (ActivityFailure e) {
      return List.of();
    }
  }
}
