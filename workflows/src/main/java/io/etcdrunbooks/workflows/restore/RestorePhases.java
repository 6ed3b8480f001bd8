package io.etcdrunbooks.workflows.restore;

import static io.etcdrunbooks.workflows.phases.RunbookPhase.always;
import static io.etcdrunbooks.workflows.phases.RunbookPhase.when;

import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.model.BackupRecord;
import io.etcdrunbooks.workflows.phases.PhaseRunner;
import io.etcdrunbooks.workflows.phases.Refusal;
import io.temporal.failure.ActivityFailure;
import java.util.List;

/**
 * The RestoreCluster runbook, phase by phase. Once the first kube-apiserver is stopped there is no
 * way back but forwards: a failing phase ends the runbook naming what it left ({@link
 * RestoreFailure}), and the restore started again finishes the work.
 */
public final class RestorePhases {

  // long on purpose: a declarative table, one entry per phase with its documented description
  public static final PhaseRunner<RestoreRun> RUNNER =
      new PhaseRunner<>(
          always(
              Phase.DISCOVER,
              "refuses a request without acknowledgeDataLoss or with a malformed etcdVersion; reads the"
                  + " inventory's members and control-plane hosts and the highest revision any member still reports;"
                  + " with newMembers, refuses a malformed list (a name or URL given twice, an inventory"
                  + " member's URL, a URL that is not http(s)://host:port)",
              RestorePhases::discover),
          always(
              Phase.PREFLIGHT,
              "refuses, touching nothing, unless the backup belongs to the cluster, has its recorded"
                  + " SHA-256, decrypts and verifies with etcd's own tool, no member would run an older minor than the one that"
                  + " took it, etcdVersion is on offer, every member is restored by a tool that raises the"
                  + " revision (its own from 3.5.10 on, or a 3.5.10+ etcdutl of the binary source) unless"
                  + " acknowledgeRevisionsBackward, every member's and control-plane host can be logged in to,"
                  + " and every member's flags can be translated for etcdVersion; onto new hosts, instead of"
                  + " the members' hosts: every new host can run the version and take its member (ports"
                  + " free, paths creatable), runs no etcd and holds no data in its data dir; and every"
                  + " control-plane host's kube-apiserver EncryptionConfiguration still has the keys the"
                  + " backup recorded, unless putBackEncryptionConfig and the backup kept the file",
              RestorePreflight::run),
          always(
              Phase.PLAN,
              "names the backup, each member's version, the revisions the restore loses and the"
                  + " kube-apiservers it stops; a dry run ends here",
              RestorePhases::plan),
          when(
              Phase.AWAITING_APPROVAL,
              "waits for an operator's approve (requireApproval)",
              run -> run.changes() && run.request.requireApproval(),
              RestorePhases::awaitApproval),
          when(
              Phase.STOP_APISERVERS,
              "moves every kube-apiserver's manifest aside and waits until it no longer answers",
              RestoreRun::changes,
              RestoreFailure.naming(RestoreApiServers::stop)),
          when(
              Phase.STOP_MEMBERS,
              "stops every member and keeps its data dir aside; installs etcdVersion when one was asked"
                  + " for, with the member's flags translated for it",
              run -> run.changes() && !run.ontoNewHosts,
              RestoreFailure.naming(RestoreMembers::stop)),
          when(
              Phase.JOIN,
              "onto new hosts (newMembers): installs the version on each new host and writes its"
                  + " member's settings there; the old members are not touched",
              run -> run.changes() && run.ontoNewHosts,
              RestoreFailure.naming(RestoreNewHosts::prepare)),
          when(
              Phase.RESTORE,
              "restores the backup on every member's host with a new cluster token and a revision"
                  + " bump (with the tool the preflight chose)",
              RestoreRun::changes,
              RestoreFailure.naming(RestoreMembers::restore)),
          when(
              Phase.INVENTORY,
              "onto new hosts: the inventory's members become the new ones (each old member replaced"
                  + " by the new one at its position), before they are started and checked",
              run -> run.changes() && run.ontoNewHosts,
              RestoreFailure.naming(RestoreNewHosts::recordInventory)),
          when(
              Phase.START_MEMBERS,
              "starts every member and waits until each is healthy and the cluster version is decided"
                  + " again",
              RestoreRun::changes,
              RestoreFailure.naming(RestoreMembers::start)),
          when(
              Phase.POSTFLIGHT,
              "every member healthy, the revision and live keys the backup's (plus the bump), hashkv"
                  + " equal; when not, the kube-apiservers are left stopped",
              RestoreRun::changes,
              RestoreFailure.naming(RestorePostflight::run)),
          when(
              Phase.APISERVERS,
              "brings the kube-apiservers back one host at a time, each healthy before the next (onto"
                  + " new hosts: each manifest's --etcd-servers set to the new members first; with"
                  + " putBackEncryptionConfig, the backup's EncryptionConfiguration written where keys"
                  + " lack); then"
                  + " restarts kube-controller-manager and kube-scheduler on every control-plane host"
                  + " by moving their manifests out and back",
              RestoreRun::changes,
              RestoreFailure.naming(RestoreApiServers::bringBack)),
          always(
              Phase.DONE,
              "the result: the backup, the revisions lost, revision and keys after, data dirs kept aside,"
                  + " kube-apiservers and controllers restarted, the kubelets to restart, and onto new"
                  + " hosts the old members left running for the operator to stop",
              RestorePhases::done));

  private RestorePhases() {}

  private static void discover(RestoreRun run) {
    RestorePreflight.checkRequest(run);
    try {
      run.members =
          run.ctx
              .progress()
              .record("inventory", () -> run.ctx.activities().inventory.members(run.ctx.ref()));
    } catch (ActivityFailure e) {
      throw Refusal.of(run.what(), List.of(Failures.rootMessage(e)), FailureType.RestoreRefused);
    }
    run.controlPlane = run.ctx.activities().apiServer.controlPlaneHosts(run.ctx.ref());
    if (run.request.ontoNewHosts()) {
      run.ontoNewHosts = RestorePatches.NEW_HOSTS.applies();
      if (run.ontoNewHosts) RestoreNewHosts.discover(run);
    }
    run.lastSeen =
        run.ctx
            .progress()
            .record(
                "last revision the members report",
                () -> run.ctx.activities().restore.lastSeenRevision(run.ctx.ref()));
  }

  private static void plan(RestoreRun run) {
    BackupRecord backup = run.backup;
    run.lost = lostRevisions(backup, run.lastSeen);
    run.ctx
        .progress()
        .message(
            "restore backup %s (revision %s, taken %s from %s) onto %s; lost: %s; apiservers stopped meanwhile: %s"
                .formatted(
                    backup.id(),
                    backup.revision(),
                    backup.takenAt(),
                    backup.member(),
                    run.versions,
                    run.lost,
                    run.controlPlane));
    if (run.ontoNewHosts) {
      String warning = NewHostsPlan.sizeWarning(run.members);
      if (!warning.isEmpty()) run.ctx.progress().message(warning);
      run.ctx
          .progress()
          .message(
              ("onto new hosts as a new cluster: %s; the old members %s are left running and"
                      + " untouched: once the kube-apiservers use the new cluster, stop and fence"
                      + " them (disable their service, keep their data dirs) so that nothing"
                      + " writes to the old cluster")
                  .formatted(
                      RestoreNewHosts.initialCluster(run.members), run.oldMembersLeftRunning()));
    }
  }

  private static void awaitApproval(RestoreRun run) {
    run.ctx.approval().awaitApproval("the kube-apiservers and members are stopped", () -> false);
  }

  private static void done(RestoreRun run) {
    if (run.changes()) {
      run.ctx
          .progress()
          .message(
              "restored backup %s at revision %s with %s keys; lost: %s"
                  .formatted(
                      run.backup.id(), run.digest.revision(), run.digest.keyCount(), run.lost));
      if (run.restartsControllers) {
        run.ctx
            .progress()
            .message(
                "restart the kubelet on %s so that node components list the restored state again"
                    .formatted(run.kubeletsToRestart()));
      }
      if (run.ontoNewHosts) {
        run.ctx
            .progress()
            .message(
                "stop and fence the old members, still running: " + run.oldMembersLeftRunning());
      }
    }
  }

  /**
   * What the restore loses: every revision after the backup's, up to the highest one a member
   * reported.
   */
  static String lostRevisions(BackupRecord backup, long lastSeen) {
    if (lastSeen == 0) return "unknown: no member reported its revision before the restore";
    if (lastSeen <= backup.revision())
      return "none (the members reported revision " + lastSeen + ")";
    return "revisions %s..%s (%s)"
        .formatted(backup.revision() + 1, lastSeen, lastSeen - backup.revision());
  }
}
