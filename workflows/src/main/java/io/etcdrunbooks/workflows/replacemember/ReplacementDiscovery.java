package io.etcdrunbooks.workflows.replacemember;

import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.ProgressTracker;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.EtcdMember;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.phases.Activities;
import io.etcdrunbooks.workflows.phases.CertificateExpiry;
import io.etcdrunbooks.workflows.phases.Discovery;
import io.etcdrunbooks.workflows.phases.Refusal;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What a replacement reads before it judges: the inventory's members, the cluster's state and
 * etcd's own member list, and from them the replacement's placement and every reason not to go on.
 * A member that just died may have led, so while an election may still give a leader, it looks
 * again a few times before it judges quorum.
 */
final class ReplacementDiscovery {

  private static final int QUORUM_LOOKS = 5;
  private static final Duration QUORUM_LOOK_INTERVAL = Duration.ofSeconds(3);

  /** What was found; {@code problems} forbid the replacement (empty: it may go on). */
  record Found(
      ClusterState state,
      List<EtcdMember> etcdMembers,
      MemberPlacement failed,
      MemberPlacement replacement,
      List<String> problems) {}

  private record Seen(ClusterState state, List<EtcdMember> etcdMembers) {}

  private ReplacementDiscovery() {}

  static Found discover(ReplaceRun run) {
    List<MemberPlacement> inventory = inventoryMembers(run);
    MemberPlacement failed =
        inventory.stream()
            .filter(m -> m.name().equals(run.request.failedMember()))
            .findFirst()
            .orElseThrow(
                () ->
                    Refusal.of(
                        run.what(),
                        List.of(
                            ("the inventory has no member '%s' (members: %s); check the name. If"
                                    + " it was replaced already there is nothing left to do")
                                .formatted(
                                    run.request.failedMember(),
                                    inventory.stream().map(MemberPlacement::name).toList())),
                        FailureType.ReplaceRefused));
    Seen seen = lookUntilQuorum(run, failed);
    Set<String> taken = new HashSet<>();
    inventory.forEach(m -> taken.add(m.name()));
    seen.etcdMembers().forEach(m -> taken.add(m.name()));
    MemberPlacement requested = run.request.replacement();
    String name =
        requested != null
            ? requested.name()
            : ReplacementPreflight.nameOnSameHost(failed.name(), taken);
    MemberPlacement replacement = ReplacementPreflight.complete(failed, requested, name);
    List<String> problems =
        new ArrayList<>(
            ReplacementPreflight.clusterProblems(
                seen.state(), seen.etcdMembers(), failed, replacement, run.request.force()));
    problems.addAll(ReplacementPreflight.urlClashes(inventory, failed, replacement));
    problems.addAll(CertificateExpiry.problems(seen.state(), failed.name()));
    return new Found(seen.state(), seen.etcdMembers(), failed, replacement, problems);
  }

  private static List<MemberPlacement> inventoryMembers(ReplaceRun run) {
    try {
      return run.ctx.activities().inventory.members(run.ctx.ref());
    } catch (ActivityFailure e) {
      if (FailureType.UnknownCluster.isTypeOf(e)) {
        throw Refusal.of(run.what(), List.of(Failures.rootMessage(e)), FailureType.ReplaceRefused);
      }
      throw e;
    }
  }

  /**
   * The cluster and etcd's member list, looked at again while an election may still give the
   * members left a leader.
   */
  private static Seen lookUntilQuorum(ReplaceRun run, MemberPlacement failed) {
    Activities activities = run.ctx.activities();
    ProgressTracker progress = run.ctx.progress();
    for (int look = 1; ; look++) {
      ClusterState state =
          Discovery.discoverOrRefuse(
              activities, progress, run.cluster(), run.what(), FailureType.ReplaceRefused);
      List<EtcdMember> etcdMembers = Discovery.etcdMembersIfAnswered(run.ctx);
      if (ReplacementQuorum.problem(state, etcdMembers, failed).isEmpty()
          || look == QUORUM_LOOKS
          || !ReplacementQuorum.electionMayHelp(state, etcdMembers, failed)) {
        return new Seen(state, etcdMembers);
      }
      progress.message(
          "no quorum seen yet without %s; looking again (%s/%s)"
              .formatted(failed.name(), look + 1, QUORUM_LOOKS));
      Workflow.sleep(QUORUM_LOOK_INTERVAL);
    }
  }
}
