package io.etcdrunbooks.workflows.downgrade;

import static io.etcdrunbooks.workflows.phases.RunbookPhase.always;
import static io.etcdrunbooks.workflows.phases.RunbookPhase.when;

import io.etcdrunbooks.workflows.activities.DowngradeActivities.StorageVersionWait;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.phases.Discovery;
import io.etcdrunbooks.workflows.phases.KubeadmConfigSync;
import io.etcdrunbooks.workflows.phases.PhaseRunner;
import io.etcdrunbooks.workflows.phases.PostflightCheck;
import java.util.ArrayList;
import java.util.List;

/** The DowngradeCluster runbook, phase by phase. */
public final class DowngradePhases {

  // long on purpose: a declarative table, one entry per phase with its documented description
  public static final PhaseRunner<DowngradeRun> RUNNER =
      new PhaseRunner<>(
              always(
                  Phase.DISCOVER,
                  "reads every member's status, version and the leader through the etcd API; a"
                      + " cluster that cannot be read is refused",
                  DowngradePhases::discover),
              always(
                  Phase.PREFLIGHT,
                  "refuses, touching nothing, at the first of: toVersion not a version or older"
                      + " than 3.5, a member unreachable, unhealthy or a learner, no leader, an"
                      + " alarm, another downgrade still in flight, toVersion not exactly one minor below the cluster version (a"
                      + " downgrade to it already enabled is taken up again), toVersion's or a"
                      + " running version's binaries not on offer, a host that cannot be logged in"
                      + " to, etcd's own `downgrade validate`",
                  DowngradePreflight::run),
              always(
                  Phase.PLAN,
                  "the members not healthy on toVersion, followers first and the leader last; a"
                      + " dry run ends here",
                  DowngradeMembers::plan),
              when(
                  Phase.AWAITING_APPROVAL,
                  "waits for an operator's approve (requireApproval)",
                  run -> run.changes() && run.request.requireApproval() && run.switchesMembers(),
                  run ->
                      run.ctx
                          .approval()
                          .awaitApproval(DowngradeMembers.firstChange(run), () -> false)),
              when(
                  Phase.DOWNGRADE,
                  "etcd's `downgrade enable` (skipped when enabled already), waits until every"
                      + " member reports the target's storage version (X.Y.0), then switches each"
                      + " member to toVersion one at a time as the upgrade switches them (its flags"
                      + " translated for the older version, leadership handed away first), the"
                      + " leader last",
                  run -> run.changes() && run.switchesMembers(),
                  DowngradeMembers::run),
              when(
                  Phase.POSTFLIGHT,
                  "every member healthy on toVersion, the cluster version toVersion's minor, raft"
                      + " indexes and hashkv equal, then a wait until every member that reports a"
                      + " storage version is on toVersion's and etcd has ended the downgrade",
                  run -> run.changes() && run.switchesMembers(),
                  DowngradePhases::postflight),
              always(
                  Phase.DONE,
                  "kube-system/kubeadm-config's etcd image set to toVersion's (static pods with"
                      + " kubernetes.kubeconfig), then the result: each member's version, the"
                      + " cluster and storage versions",
                  DowngradePhases::done))
          .compensatingIn(
              Phase.COMPENSATE,
              "a member that did not come up on toVersion, or an operator's cancel between"
                  + " members: etcd's `downgrade cancel` first, while the cluster is still mixed,"
                  + " then the members switched so far back on the version they ran, newest first;"
                  + " the failure names the member, the cause and the cluster's state",
              new DowngradeCompensation());

  private DowngradePhases() {}

  private static void discover(DowngradeRun run) {
    run.state =
        Discovery.discoverOrRefuseAnyFailure(
            run.ctx.activities(),
            run.ctx.progress(),
            run.cluster(),
            run.what(),
            FailureType.DowngradeRefused);
  }

  private static void postflight(DowngradeRun run) {
    String minor = run.targetMinor();
    PostflightCheck.Found found =
        PostflightCheck.check(
            run.ctx,
            state -> {
              List<String> problems = new ArrayList<>();
              state.members().stream()
                  .filter(m -> !run.toVersion().equals(m.serverVersion()))
                  .forEach(
                      m ->
                          problems.add(
                              "member %s runs %s, not %s"
                                  .formatted(m.name(), m.serverVersion(), run.toVersion())));
              if (!(minor + ".0").equals(state.clusterVersion())) {
                problems.add(
                    "the cluster version is %s, not %s.0".formatted(state.clusterVersion(), minor));
              }
              return problems;
            });
    run.after = found.state();
    if (!found.problems().isEmpty()) throw PostflightCheck.failed(run.what(), found.problems());
    run.ctx
        .progress()
        .record(
            "storage version " + minor + ".0, the downgrade ended by etcd",
            () ->
                run.ctx
                    .activities()
                    .downgradeWait
                    .awaitStorageVersion(
                        new StorageVersionWait(
                            run.cluster(),
                            minor,
                            run.request.effectiveMemberTimeoutSeconds(),
                            true)));
  }

  private static void done(DowngradeRun run) {
    if (!run.changes() || !run.switchesMembers()) return;
    String kubeadmConfig =
        KubeadmConfigSync.followVersion(
                run.ctx,
                run.toVersion(),
                "%s: every member runs %s".formatted(run.what(), run.toVersion()))
            .map(detail -> "; " + detail)
            .orElse("");
    run.ctx
        .progress()
        .message(
            "all members on %s, cluster version %s%s"
                .formatted(run.toVersion(), run.after.clusterVersion(), kubeadmConfig));
  }
}
