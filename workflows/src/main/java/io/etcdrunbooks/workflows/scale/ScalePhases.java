package io.etcdrunbooks.workflows.scale;

import static io.etcdrunbooks.workflows.phases.RunbookPhase.always;
import static io.etcdrunbooks.workflows.phases.RunbookPhase.when;

import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.phases.KubeadmConfigSync;
import io.etcdrunbooks.workflows.phases.PhaseRunner;
import io.etcdrunbooks.workflows.phases.Refusal;
import java.util.List;

/**
 * The ScaleCluster runbook, phase by phase: DISCOVER and PREFLIGHT are in {@link ScaleDiscovery},
 * JOIN, APISERVERS, REMOVE and POSTFLIGHT in {@link ScaleSteps}.
 */
public final class ScalePhases {

  // long on purpose: a declarative table, one entry per phase with its documented description
  public static final PhaseRunner<ScaleRun> RUNNER =
      new PhaseRunner<ScaleRun>(
              always(
                  Phase.DISCOVER,
                  "checks the request, then reads the inventory, every member's status and etcd's"
                      + " member list, and works out the members to add (newMembers the inventory"
                      + " does not have yet) or to remove (those named, or members that do not"
                      + " answer first, then followers from the end of the inventory, the leader"
                      + " last)",
                  ScaleDiscovery::discover),
              always(
                  Phase.PREFLIGHT,
                  "refuses, touching nothing, unless the target is odd and 3 or more, the new"
                      + " members are exactly those missing and clash with no member, etcd's"
                      + " members match the inventory with no learner, every member that stays is"
                      + " healthy with a leader, all run one version, certificates are not about to"
                      + " expire, the inventory is writable and every host (the new members' too)"
                      + " can be logged in to; a cluster already at the target ends here unchanged",
                  ScaleDiscovery::preflight),
              always(
                  Phase.PLAN,
                  "names the members to add (learners then promoted on 3.4 and later) or remove, in"
                      + " order, and the kube-apiservers' new --etcd-servers; a dry run ends here",
                  ScalePhases::plan),
              when(
                  Phase.AWAITING_APPROVAL,
                  "waits for an operator's approve (requireApproval), then looks at the cluster"
                      + " again",
                  run -> run.changes() && run.request.requireApproval(),
                  ScalePhases::awaitApproval),
              when(
                  Phase.JOIN,
                  "one new member at a time: every member must be healthy with a leader, then it is"
                      + " added, its host prepared, started and caught up, a learner promoted, and"
                      + " it is recorded in the inventory; a new member that does not join is"
                      + " removed again (COMPENSATE) and the runbook fails naming it",
                  run -> run.changes() && !run.plan.add().isEmpty(),
                  ScaleSteps::join),
              when(
                  Phase.APISERVERS,
                  "sets each kube-apiserver's --etcd-servers to the members the cluster ends with,"
                      + " one host at a time, each healthy before the next (before any member is"
                      + " removed, so no apiserver is left on a member that goes); one that is not"
                      + " gets its manifest back (COMPENSATE)",
                  ScaleRun::changes,
                  ScaleSteps::apiServers),
              when(
                  Phase.REMOVE,
                  "one member at a time: the members left must hold quorum without it, leadership"
                      + " is handed to a member that stays, it is removed from etcd's membership and"
                      + " the inventory, then its etcd stopped with its data dir kept aside (a host"
                      + " that does not answer is named, not waited for)",
                  run -> run.changes() && !run.plan.remove().isEmpty(),
                  ScaleSteps::remove),
              when(
                  Phase.POSTFLIGHT,
                  "every member healthy, no learner, etcd's member list as long as the inventory and"
                      + " the target, raft indexes and hashkv equal",
                  ScaleRun::changes,
                  ScaleSteps::postflight),
              always(
                  Phase.DONE,
                  "kube-system/kubeadm-config's etcd.external.endpoints set to the inventory's"
                      + " members (external etcd with kubernetes.kubeconfig; stacked etcd lists"
                      + " none), then the result: sizes before and after, the members added and"
                      + " removed, etcd's members, the apiservers changed",
                  ScalePhases::done))
          .compensatingIn(
              Phase.COMPENSATE,
              "a new member that did not join is removed from the membership again and its etcd"
                  + " stopped, its data dir kept aside; members added or removed before it stay (each"
                  + " is recorded); a kube-apiserver that did not come back healthy gets its previous"
                  + " manifest back; the failure names the members now and the next step",
              new ScaleFailures());

  private ScalePhases() {}

  private static void plan(ScaleRun run) {
    if (!run.plan.changes()) {
      run.ctx
          .progress()
          .message(
              "the cluster has %d members already: nothing to do".formatted(run.inventory.size()));
      return;
    }
    String urls = String.join(",", run.targetClientUrls());
    if (!run.plan.add().isEmpty()) {
      run.ctx
          .progress()
          .message(
              "%d -> %d members: add %s, one at a time %s, etcd %s; then every kube-apiserver's"
                  + " --etcd-servers=%s"
                      .formatted(
                          run.inventory.size(),
                          run.request.targetSize(),
                          run.plan.add().stream().map(ScalePhases::where).toList(),
                          run.learner
                              ? "as learners, each promoted once in sync"
                              : "as voting members",
                          run.version,
                          urls));
    } else {
      run.ctx
          .progress()
          .message(
              "%d -> %d members: every kube-apiserver's --etcd-servers=%s first, then remove %s,"
                  + " one at a time (leadership handed on first)"
                      .formatted(
                          run.inventory.size(),
                          run.request.targetSize(),
                          urls,
                          ScaleRun.placementNames(run.plan.remove())));
    }
  }

  private static String where(MemberPlacement m) {
    return "%s on %s (%s)".formatted(m.name(), m.host(), m.peerUrl());
  }

  /**
   * Once approved, the cluster may have changed while the runbook waited: it is looked at again.
   */
  private static void awaitApproval(ScaleRun run) {
    String first =
        run.plan.add().isEmpty()
            ? "kube-apiservers and members are changed"
            : run.plan.add().get(0).name() + " is added";
    run.ctx.approval().awaitApproval(first, () -> false);
    List<String> now = ScaleDiscovery.lookAgain(run);
    if (!now.isEmpty()) throw Refusal.of(run.what(), now, FailureType.ScaleRefused);
  }

  private static void done(ScaleRun run) {
    if (!run.changes()) return;
    KubeadmConfigSync.followInventoryMembers(
            run.ctx,
            "%s: the cluster has %d members %s, recorded in the inventory"
                .formatted(run.what(), run.members.size(), ScaleRun.names(run.members)))
        .ifPresent(run.notes::add);
    run.ctx
        .progress()
        .message(
            "%d -> %d members: added %s, removed %s; members %s"
                .formatted(
                    run.inventory.size(),
                    run.members.size(),
                    run.added,
                    run.removed,
                    ScaleRun.names(run.members)));
  }
}
