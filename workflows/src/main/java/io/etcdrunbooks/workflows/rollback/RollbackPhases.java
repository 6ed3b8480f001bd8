package io.etcdrunbooks.workflows.rollback;

import static io.etcdrunbooks.workflows.phases.RunbookPhase.always;
import static io.etcdrunbooks.workflows.phases.RunbookPhase.when;

import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.phases.Discovery;
import io.etcdrunbooks.workflows.phases.KubeadmConfigSync;
import io.etcdrunbooks.workflows.phases.PhaseRunner;

/**
 * The RollbackCluster runbook, phase by phase. Going back is itself the undo of an upgrade, so it
 * has no compensation of its own: a member that cannot be put back ends it naming the member, and
 * the rollback started again skips the members already back.
 */
public final class RollbackPhases {

  // long on purpose: a declarative table, one entry per phase with its documented description
  public static final PhaseRunner<RollbackRun> RUNNER =
      new PhaseRunner<>(
          always(
              Phase.DISCOVER,
              "reads every member's status, version and the leader through the etcd API; a cluster that"
                  + " cannot be read is refused",
              RollbackPhases::discover),
          always(
              Phase.PREFLIGHT,
              "refuses, touching nothing, at the first of: toVersion not a version, no leader, the"
                  + " cluster version past toVersion without acknowledgeDataLoss (but where etcd downgrades online: a"
                  + " cluster version of 3.6 or later one minor above toVersion), toVersion not on offer, a host that"
                  + " cannot be logged in to",
              RollbackPreflight::run),
          always(
              Phase.PLAN,
              "the members not healthy on toVersion, down ones first and the leader last; past a moved"
                  + " cluster version, etcd's online downgrade where it can (3.6 and later, one minor), else the backup to"
                  + " restore; a dry run ends here, but for the downgrade's or restore's own dry run",
              RollbackPhases::plan),
          when(
              Phase.AWAITING_APPROVAL,
              "waits for an operator's approve (requireApproval)",
              run ->
                  run.changes()
                      && run.request.requireApproval()
                      && (run.byRestore || run.byDowngrade || run.switchesMembers()),
              RollbackPhases::awaitApproval),
          when(
              Phase.ROLLBACK,
              "switches those members back to toVersion one at a time, as the upgrade switches them; past a"
                  + " moved cluster version, runs the DowngradeCluster runbook as its child where etcd downgrades online,"
                  + " else the RestoreCluster runbook with toVersion's binaries (on a dry run, as a dry run)",
              run -> run.byRestore || run.byDowngrade || (run.changes() && run.switchesMembers()),
              RollbackPhases::rollBack),
          when(
              Phase.POSTFLIGHT,
              "every member healthy on toVersion, raft indexes and hashkv equal",
              run -> run.changes() && run.switchesMembers(),
              RollbackMembers::postflight),
          always(
              Phase.DONE,
              "kube-system/kubeadm-config's etcd image set back to toVersion's (static pods with"
                  + " kubernetes.kubeconfig), then the result: each member's version and the cluster"
                  + " version; through a restore, the backup restored and the revisions lost; through the online"
                  + " downgrade, the child's result (it set kubeadm-config itself)",
              RollbackPhases::done));

  private RollbackPhases() {}

  private static void discover(RollbackRun run) {
    run.state =
        Discovery.discoverOrRefuseAnyFailure(
            run.ctx.activities(),
            run.ctx.progress(),
            run.cluster(),
            run.what(),
            FailureType.RollbackRefused);
  }

  private static void plan(RollbackRun run) {
    if (run.byDowngrade) {
      RollbackByDowngrade.plan(run);
    } else if (run.byRestore) {
      RollbackByRestore.plan(run);
    } else {
      RollbackMembers.plan(run);
    }
  }

  private static void awaitApproval(RollbackRun run) {
    run.ctx
        .approval()
        .awaitApproval(
            run.byDowngrade
                ? RollbackByDowngrade.firstChange(run)
                : run.byRestore
                    ? RollbackByRestore.firstChange(run)
                    : RollbackMembers.firstChange(run),
            () -> false);
  }

  private static void rollBack(RollbackRun run) {
    if (run.byDowngrade) {
      RollbackByDowngrade.run(run);
    } else if (run.byRestore) {
      RollbackByRestore.run(run);
    } else {
      RollbackMembers.run(run);
    }
  }

  private static void done(RollbackRun run) {
    if (run.byDowngrade) {
      // the downgrade child set kubeadm-config itself
      run.ctx
          .progress()
          .message(
              run.request.dryRun()
                  ? "dry run: would downgrade online to " + run.toVersion
                  : "downgraded online to %s, no write lost; cluster version %s"
                      .formatted(run.toVersion, run.after.clusterVersion()));
      return;
    }
    String kubeadmConfig =
        run.changes() && (run.byRestore || run.switchesMembers())
            ? KubeadmConfigSync.followVersion(
                    run.ctx,
                    run.toVersion,
                    "%s: every member runs %s".formatted(run.what(), run.toVersion))
                .map(detail -> "; " + detail)
                .orElse("")
            : "";
    if (run.byRestore) {
      String backup = run.restored.backup().id();
      run.ctx
          .progress()
          .message(
              run.request.dryRun()
                  ? "dry run: would restore backup " + backup
                  : "restored backup %s with etcd %s; lost: %s%s"
                      .formatted(
                          backup, run.toVersion, run.restored.lostRevisions(), kubeadmConfig));
    } else if (run.changes() && run.switchesMembers()) {
      run.ctx.progress().message("all members on " + run.toVersion + kubeadmConfig);
    }
  }
}
