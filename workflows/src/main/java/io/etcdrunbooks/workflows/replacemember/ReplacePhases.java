package io.etcdrunbooks.workflows.replacemember;

import static io.etcdrunbooks.workflows.phases.RunbookPhase.always;
import static io.etcdrunbooks.workflows.phases.RunbookPhase.when;

import io.etcdrunbooks.workflows.activities.InventoryActivities.RecordReplacementRequest;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.phases.ClusterChecks;
import io.etcdrunbooks.workflows.phases.PhaseRunner;
import io.etcdrunbooks.workflows.phases.Refusal;
import java.util.List;

/**
 * The ReplaceMember runbook, phase by phase: the phase table (name, what it does, when, body) and
 * the short phases; REMOVE, JOIN, APISERVERS and the checks have classes of their own.
 */
public final class ReplacePhases {

  // long on purpose: a declarative table, one entry per phase with its documented description
  public static final PhaseRunner<ReplaceRun> RUNNER =
      new PhaseRunner<>(
              always(
                  Phase.DISCOVER,
                  "checks the request, then reads the inventory, every member's status and etcd's member list"
                      + " (looking again, up to 5 times 3 s apart, while an election may still give the members left a leader)",
                  ReplacePhases::discover),
              always(
                  Phase.PREFLIGHT,
                  "refuses, touching nothing, unless the members left hold quorum, the failed member is"
                      + " unhealthy (or force), etcd's members match the inventory, the replacement clashes with no member, the"
                      + " inventory is writable and every host it needs (the new member's too) can be logged in to",
                  ReplacementPreflightPhase::run),
              always(
                  Phase.PLAN,
                  "names the member to remove and the new one (a learner on 3.4 and later) and the apiserver"
                      + " change; a dry run ends here",
                  ReplacePhases::plan),
              when(
                  Phase.WAITING,
                  "with confirmDownSeconds (an alert's automatic start): the failed member must stay"
                      + " down that long, looked at every 15 s; if it answers healthy again, or the"
                      + " alert resolves, the runbook ends touching nothing (a rebooting node is not"
                      + " replaced); then the cluster is looked at again",
                  run -> run.changes() && run.request.confirmDownSeconds() > 0,
                  ReplacementWatch::confirmDown),
              when(
                  Phase.AWAITING_APPROVAL,
                  "waits for an operator's approve (requireApproval), then looks at the cluster again;"
                      + " an alert that resolves first ends the runbook, touching nothing",
                  run -> run.changes() && run.request.requireApproval(),
                  ReplacePhases::awaitApproval),
              when(
                  Phase.REMOVE,
                  "removes the failed member from etcd's membership (a leader hands leadership on first)",
                  ReplaceRun::changes,
                  ReplacementRemoval::run),
              when(
                  Phase.JOIN,
                  "adds the new member, prepares its host, starts it and waits until it has caught up, then promotes"
                      + " a learner; a new member that does not join is removed again (COMPENSATE)",
                  ReplaceRun::changes,
                  ReplacementJoin::run),
              when(
                  Phase.INVENTORY,
                  "records the new member in the failed member's place in the inventory",
                  ReplaceRun::changes,
                  ReplacePhases::recordInInventory),
              when(
                  Phase.APISERVERS,
                  "points each kube-apiserver's --etcd-servers at the new member, one host at a time, each"
                      + " healthy before the next; one that is not gets its manifest back (COMPENSATE);"
                      + " then kube-system/kubeadm-config's etcd.external.endpoints list the"
                      + " inventory's members (external etcd with kubernetes.kubeconfig; stacked etcd"
                      + " lists none)",
                  ReplaceRun::changes,
                  ReplacementApiServers::run),
              when(
                  Phase.POSTFLIGHT,
                  "every member healthy, no learner left, etcd's member list as long as the inventory, hashkv"
                      + " equal",
                  ReplaceRun::changes,
                  ReplacementPostflight::run),
              always(
                  Phase.DONE,
                  "the result: the removed and the new member, etcd's members, the apiservers changed",
                  ReplacePhases::done))
          .compensatingIn(
              Phase.COMPENSATE,
              "a new member that did not join is removed from the membership again and its etcd"
                  + " stopped, its data dir kept aside; a kube-apiserver that did not come back healthy gets its previous"
                  + " manifest back; the failure names what was undone and what was not",
              new ReplaceFailures());

  private ReplacePhases() {}

  private static void discover(ReplaceRun run) {
    List<String> inputProblems = ReplacementPreflight.inputProblems(run.request);
    if (!inputProblems.isEmpty())
      throw Refusal.of(run.what(), inputProblems, FailureType.ReplaceRefused);
    String trigger = run.request.trigger();
    if (trigger != null && !trigger.isBlank()) run.ctx.progress().message("started by " + trigger);
    run.found = ReplacementDiscovery.discover(run);
    run.version = ClusterChecks.runningVersion(run.found.state());
  }

  private static void plan(ReplaceRun run) {
    MemberPlacement failed = run.failed();
    MemberPlacement replacement = run.replacement();
    String how = run.learner ? "as a learner, then promote" : "as a voting member";
    run.ctx
        .progress()
        .message(
            ("remove %s (%s), add %s on %s (%s) %s, etcd %s; then point the kube-apiservers at %s"
                    + " instead of %s")
                .formatted(
                    failed.name(),
                    failed.peerUrl(),
                    replacement.name(),
                    replacement.host(),
                    replacement.peerUrl(),
                    how,
                    run.version,
                    replacement.clientUrl(),
                    failed.clientUrl()));
  }

  /**
   * Once approved, the cluster may have changed while the runbook waited: it is looked at again
   * before anything is touched.
   */
  private static void awaitApproval(ReplaceRun run) {
    if (!run.ctx.approval().awaitApproval(run.failed().name() + " is removed", run.alertResolved)) {
      run.cancelled = true;
      return;
    }
    List<String> now = ReplacementDiscovery.discover(run).problems();
    if (!now.isEmpty()) throw Refusal.of(run.what(), now, FailureType.ReplaceRefused);
  }

  private static void recordInInventory(ReplaceRun run) {
    MemberPlacement replacement = run.replacement();
    run.ctx
        .progress()
        .run(
            "record %s in place of %s in the inventory"
                .formatted(replacement.name(), run.failed().name()),
            () ->
                run.ctx
                    .activities()
                    .inventory
                    .recordReplacement(
                        new RecordReplacementRequest(
                            run.cluster(), run.failed().name(), replacement)));
  }

  private static void done(ReplaceRun run) {
    if (run.cancelled) {
      run.ctx.progress().message("cancelled: " + run.cancelReason);
    } else if (run.changes()) {
      run.ctx
          .progress()
          .message(
              "%s replaced %s; members %s"
                  .formatted(
                      run.replacement().name(),
                      run.failed().name(),
                      ReplaceRun.names(run.members, run.replacement())));
    }
  }
}
