package io.etcdrunbooks.workflows.upgrade;

import static io.etcdrunbooks.workflows.phases.RunbookPhase.always;
import static io.etcdrunbooks.workflows.phases.RunbookPhase.when;

import io.etcdrunbooks.workflows.activities.EtcdActivities.KeyspaceDigestRequest;
import io.etcdrunbooks.workflows.activities.HostActivities.InstallRequest;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.EtcdVersion;
import io.etcdrunbooks.workflows.model.KeyspaceDigest;
import io.etcdrunbooks.workflows.model.KeyspaceHashes;
import io.etcdrunbooks.workflows.model.MemberStatus;
import io.etcdrunbooks.workflows.phases.Discovery;
import io.etcdrunbooks.workflows.phases.PhaseRunner;
import io.etcdrunbooks.workflows.phases.VerifiedBackup;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/** The UpgradeCluster runbook, phase by phase. */
public final class UpgradePhases {

  // long on purpose: a declarative table, one entry per phase with its documented description
  public static final PhaseRunner<UpgradeRun> RUNNER =
      new PhaseRunner<>(
              always(
                  Phase.DISCOVER,
                  "reads every member's status, version and the leader through the etcd API",
                  UpgradePhases::discover),
              always(
                  Phase.PREFLIGHT,
                  "refuses, touching nothing, unless every member is healthy, raft indexes and hashkv agree,"
                      + " the binary source (for static pods: the tags of the image repository too) offers a"
                      + " ladder to the target and every host can be logged in to",
                  UpgradePreflight::run),
              always(
                  Phase.PLAN,
                  "plans the ladder (each minor at its newest patch on offer), followers first and the leader last;"
                      + " a dry run ends here",
                  UpgradePhases::plan),
              when(
                  Phase.AWAITING_APPROVAL,
                  "waits for an operator's approve (requireApproval)",
                  run -> run.changes() && run.request.requireApproval(),
                  UpgradePhases::awaitApproval),
              when(
                  Phase.STAGE,
                  "uploads every rung's binaries to every member's host at once, each checked by its"
                      + " SHA-256 (static pods: pulls every rung's image on every node with `crictl pull`;"
                      + " a failed pull ends the run, ImagePullFailed), beside the backup and before any"
                      + " member stops, so that a member's restart is stop, switch, start, ready",
                  run -> run.changes() && stagesBinaries(),
                  UpgradePhases::stage),
              when(
                  Phase.BACKUP,
                  "takes a verified, encrypted backup and, beside it, the keyspace checksum at the"
                      + " revision just discovered (every member's hashkv there is the preflight's, or"
                      + " taken again after a wait)",
                  UpgradeRun::changes,
                  UpgradePhases::backup),
              when(
                  Phase.UPGRADE,
                  "switches each member to each rung of the ladder, leader last (stop, switch, start and"
                      + " ready on health and raft progress, its process watched, in one step; its down"
                      + " time measured), then gives the rung's leader leadership back so that etcd decides"
                      + " the cluster version at once; a member that fails is put back with the rest of its"
                      + " rung (COMPENSATE); once a rung is final, kube-system/kubeadm-config's"
                      + " etcd.local.imageTag (and imageRepository) names its image, through the"
                      + " Kubernetes API (static pods with kubernetes.kubeconfig; else the step says what"
                      + " to set by hand)",
                  UpgradeRun::changes,
                  UpgradeLadder::run),
              when(
                  Phase.POSTFLIGHT,
                  "every member on the target and healthy, the cluster version moved, hashkv equal, the"
                      + " keyspace at the revision read beside the backup unchanged (one member's hashkv"
                      + " there as every member's before; read out again only when it is not)",
                  UpgradeRun::changes,
                  UpgradePostflight::run),
              always(
                  Phase.DONE,
                  "the result: member versions, cluster version, backup, checksums",
                  UpgradePhases::done))
          .compensatingIn(
              Phase.COMPENSATE,
              "a member that did not come up on its rung: while the cluster version has not"
                  + " moved, the rung's members go back to the old version, newest first; the failure names the member, its last"
                  + " log lines and the cluster's state",
              new UpgradeCompensation());

  private UpgradePhases() {}

  private static void discover(UpgradeRun run) {
    run.discoveredAt = Workflow.currentTimeMillis();
    run.state =
        Discovery.discoverOrRefuse(
            run.ctx.activities(),
            run.ctx.progress(),
            run.cluster(),
            run.what(),
            FailureType.PreflightRefused);
  }

  private static void plan(UpgradeRun run) {
    List<LadderStep> steps = new ArrayList<>();
    EtcdVersion from = run.running;
    List<String> order = leaderLast(run.state);
    for (EtcdVersion to : run.ladder) {
      steps.add(new LadderStep(from, to, order));
      from = to;
    }
    run.plan = new UpgradePlan(run.running, run.ladder.get(run.ladder.size() - 1), steps);
    run.ctx
        .progress()
        .message(
            "plan: " + steps.stream().map(LadderStep::label).collect(Collectors.joining(", ")));
  }

  private static void awaitApproval(UpgradeRun run) {
    run.ctx.approval().awaitApproval("the pre-upgrade backup and the first member", () -> false);
  }

  /** Added after the runbook shipped: histories recorded before it replay without the phase. */
  private static boolean stagesBinaries() {
    return UpgradePatches.STAGE_BINARIES.applies();
  }

  static boolean overlapsChecks() {
    return UpgradePatches.OVERLAPPED_CHECKS.applies();
  }

  /**
   * The STAGE phase: uploads start and, in upgrades that overlap their checks, go on beside the
   * backup, which waits for them at its end ({@link UpgradeRun#staged}).
   */
  private static void stage(UpgradeRun run) {
    if (overlapsChecks()) run.staged = Async.procedure(() -> stageEveryRung(run));
    else stageEveryRung(run);
  }

  private static void stageEveryRung(UpgradeRun run) {
    List<String> members = run.state.members().stream().map(MemberStatus::name).toList();
    for (LadderStep step : run.plan.steps()) {
      run.ctx
          .progress()
          .run(
              "etcd %s on every host".formatted(step.toVersion()),
              () -> {
                List<Promise<String>> uploads = new ArrayList<>();
                for (String member : members) {
                  uploads.add(
                      Async.function(
                          run.ctx.activities().host::stageVersion,
                          new InstallRequest(run.cluster(), member, step.toVersion().toString())));
                }
                Promise.allOf(uploads).get();
                List<String> done = new ArrayList<>();
                for (int i = 0; i < members.size(); i++)
                  done.add(members.get(i) + ": " + uploads.get(i).get());
                run.ctx.progress().message("etcd " + step.toVersion() + " staged: " + done);
              });
    }
  }

  private static void backup(UpgradeRun run) {
    run.ctx.progress().stopIfCancelled("the pre-upgrade backup");
    if (keyspaceBesideBackup() && run.state.revision() > 0) {
      backupBesideTheKeyspace(run, recentRevision(run));
    } else {
      VerifiedBackup.Taken taken = VerifiedBackup.take(run.ctx, "pre-upgrade");
      run.backup = taken.backup();
      run.before = taken.keyspace();
    }
    // staged beside the backup: both are done before the UPGRADE phase touches a member
    run.ctx.progress().run("binaries staged on every host", () -> run.staged.get());
  }

  private static boolean keyspaceBesideBackup() {
    return UpgradePatches.KEYSPACE_BESIDE_BACKUP.applies();
  }

  /**
   * The revision discovery read, when it read it a moment ago; after a wait (an approval, a pause)
   * a compaction (kube-apiserver's, every 5 minutes) could have passed it, so it is read again.
   */
  private static long recentRevision(UpgradeRun run) {
    if (Workflow.currentTimeMillis() - run.discoveredAt <= RECENT_MILLIS)
      return run.state.revision();
    return run.ctx
        .progress()
        .record("current revision", () -> run.ctx.activities().etcd.discover(run.ctx.ref()))
        .revision();
  }

  private static final long RECENT_MILLIS = 60_000;

  private static void backupBesideTheKeyspace(UpgradeRun run, long revision) {
    KeyspaceDigestRequest at = new KeyspaceDigestRequest(run.cluster(), revision);
    Promise<KeyspaceDigest> digest = Async.function(run.ctx.activities().etcd::keyspaceDigest, at);
    // the preflight's comparison at this revision already scanned every member
    boolean compared = run.beforeHashes != null && run.beforeHashes.revision() == revision;
    Promise<KeyspaceHashes> hashes =
        compared
            ? Workflow.newPromise(run.beforeHashes)
            : Async.function(run.ctx.activities().etcd::keyspaceHashes, at);
    run.backup = VerifiedBackup.backupOnly(run.ctx, "pre-upgrade");
    try {
      run.before =
          run.ctx.progress().record("keyspace checksum at revision " + revision, digest::get);
    } catch (ActivityFailure e) {
      // compacted meanwhile, say: the checksum is read at the backup's revision, as before
      run.ctx
          .progress()
          .message(
              "keyspace at revision %d could not be read (%s): read at the backup's revision instead"
                  .formatted(revision, Failures.rootMessage(e)));
      run.before = VerifiedBackup.keyspaceAt(run.ctx, run.backup);
      run.beforeHashes = null; // taken at the other revision
      return;
    }
    if (compared) return;
    try {
      run.beforeHashes =
          run.ctx.progress().record("every member's hashkv at revision " + revision, hashes::get);
    } catch (ActivityFailure e) {
      // only a shortcut for the postflight, which then reads the keyspace out again
      run.ctx
          .progress()
          .message(
              "every member's hashkv at revision %d could not be read (%s): the postflight reads the keyspace out again"
                  .formatted(revision, Failures.rootMessage(e)));
    }
  }

  private static void done(UpgradeRun run) {
    if (run.changes()) {
      run.ctx
          .progress()
          .message(
              "all members on %s, cluster version %s"
                  .formatted(run.request.targetVersion(), run.state.clusterVersion()));
    }
  }

  /**
   * Followers first, then the member leading now; re-read at each step, since leadership moves
   * during an upgrade.
   */
  static List<String> leaderLast(ClusterState state) {
    List<String> order = new ArrayList<>();
    state.members().stream()
        .map(MemberStatus::name)
        .filter(n -> !n.equals(state.leaderName()))
        .forEach(order::add);
    if (!state.leaderName().isEmpty()) order.add(state.leaderName());
    return order;
  }
}
