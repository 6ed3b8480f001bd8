package io.etcdrunbooks.workflows.recover;

import io.etcdrunbooks.workflows.activities.EtcdActivities.AwaitMemberRequest;
import io.etcdrunbooks.workflows.activities.RecoveryActivities.RestoreSurvivorRequest;
import io.etcdrunbooks.workflows.common.ProgressTracker;
import io.etcdrunbooks.workflows.model.EtcdVersion;
import io.etcdrunbooks.workflows.model.MemberRef;
import io.etcdrunbooks.workflows.phases.Activities;
import io.etcdrunbooks.workflows.restore.RestoreTools;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A recovery never takes the revision back. The lost members had acknowledged revisions above the
 * survivor's, and watchers (kube-apiserver's watch cache, every informer behind it) had seen them:
 * a cluster that went on from the survivor's revision would give those numbers to other writes, and
 * a watcher resuming after one it saw would silently miss every change up to it. So the survivor is
 * not forced into a cluster of one with {@code --force-new-cluster}, which keeps its revision, but
 * rebuilt from its data dir copy with {@code etcdutl snapshot restore --bump-revision
 * --mark-compacted}, as restores are: a watcher resuming from any revision it saw is told that it
 * is compacted and relists. The tool is the survivor's own etcdutl from 3.5.10 on, else the binary
 * source's newest 3.5 one from 3.5.10 on (as restores choose theirs); with neither the recovery is
 * refused unless the request acknowledges the revision going back.
 */
final class RecoverRevision {

  /**
   * How far the revision is raised: the restores' rule (etcd's and Kubernetes' guides suggest it),
   * 1,000,000,000. What the lost members reached beyond the survivor cannot be read (they are
   * gone), so the bump must exceed any lag a survivor can have: a billion revisions is 10,000
   * writes a second for more than a day, and etcd's int64 revision has room for billions of such
   * bumps.
   */
  static final long BUMP = 1_000_000_000L;

  private RecoverRevision() {}

  /**
   * PREFLIGHT: which etcdutl rebuilds the survivor with its revision raised. Returns the problems:
   * none, or the revision going back without the request's acknowledgement.
   */
  static List<String> choose(RecoverRun run) {
    run.revisionsChecked = RecoverPatches.BUMP_REVISION.applies();
    if (!run.revisionsChecked) return List.of();
    ProgressTracker progress = run.ctx.progress();
    if (EtcdVersion.find(run.version).map(EtcdVersion::restoresWithRevisionBump).orElse(false)) {
      run.restoreTool = run.version;
      run.ownTool = true;
      return List.of();
    }
    List<String> offered =
        progress.record(
            "releases the binary source offers",
            () -> run.ctx.activities().releases.availableVersions(run.ctx.ref()));
    Optional<String> borrowed = RestoreTools.bumpingRelease(run.version, offered);
    if (borrowed.isPresent()) {
      run.restoreTool = borrowed.get();
      progress.message(
          ("%s is rebuilt with etcdutl %s from the binary source, which raises the revision (its"
                  + " own etcd %s's tool cannot)")
              .formatted(run.survivor.name(), run.restoreTool, run.version));
      return List.of();
    }
    if (run.request.acknowledgeRevisionsBackward()) {
      progress.message(
          ("%s keeps its revision (acknowledgeRevisionsBackward): no etcdutl from 3.5.10 on can"
                  + " be had to raise it")
              .formatted(run.survivor.name()));
      return List.of();
    }
    return List.of(
        ("the survivor %s runs etcd %s, whose tool cannot raise the revision (--bump-revision came"
                + " with etcdutl 3.5.10), and the binary source offers no 3.5 release from 3.5.10 on"
                + " to rebuild it with (it has %s): the cluster would go on from %s's revision %d,"
                + " lower than any the lost members acknowledged after it, and every"
                + " kube-apiserver watch cache and informer holding a newer resourceVersion would"
                + " miss events until it relists. Add such a release to the binary source, or set"
                + " acknowledgeRevisionsBackward and restart every kube-apiserver and controller"
                + " after the recovery")
            .formatted(
                run.survivor.name(),
                run.version,
                offered,
                run.survivor.name(),
                run.survivorRevision));
  }

  /**
   * FORCE_NEW_CLUSTER with the revision raised: the survivor's data dir rebuilt from its copy as a
   * new cluster of one, started, and awaited as its leader.
   */
  static void rebuildSurvivor(RecoverRun run) {
    Activities activities = run.ctx.activities();
    ProgressTracker progress = run.ctx.progress();
    String survivor = run.survivor.name();
    MemberRef ref = new MemberRef(run.cluster(), survivor);
    progress.member(survivor);
    run.revisionBump =
        progress.record(
            ("%s: a new cluster of one from its data dir copy, the revision raised by %d and"
                    + " compacted (etcdutl %s)")
                .formatted(survivor, BUMP, run.restoreTool),
            () ->
                activities.recovery.restoreSurvivor(
                    new RestoreSurvivorRequest(
                        run.cluster(),
                        survivor,
                        run.recoveryId(),
                        run.restoreTool,
                        run.ownTool,
                        BUMP)));
    progress.run(survivor + ": start as a cluster of one", () -> activities.host.startMember(ref));
    progress.run(
        survivor + ": leads a cluster of one",
        () ->
            activities.etcdWait.awaitMemberReady(
                new AwaitMemberRequest(
                    run.cluster(),
                    survivor,
                    run.version,
                    run.request.effectiveMemberTimeoutSeconds())));
    run.forcedNewCluster = true;
    run.revisionAfter =
        progress.record(survivor + ": revision now", () -> activities.recovery.memberRevision(ref));
    // what the copy's database held: the plan read the survivor before it was stopped
    long kept = run.revisionAfter - run.revisionBump;
    if (kept != run.survivorRevision) {
      progress.message(
          "%s held revision %d, not %d as planned: it applied what it had received meanwhile"
              .formatted(survivor, kept, run.survivorRevision));
      run.survivorRevision = kept;
    }
    progress.member("");
  }

  /** The plan's words for how the survivor becomes a cluster of one. */
  static String planned(RecoverRun run) {
    if (run.bumpsRevision())
      return ("%s rebuilt from its copy as a new cluster of one (etcdutl %s snapshot restore"
              + " --bump-revision %d --mark-compacted: no revision a watcher saw comes again)")
          .formatted(run.survivor.name(), run.restoreTool, BUMP);
    return "%s started once with --force-new-cluster (a cluster of one), then without"
        .formatted(run.survivor.name());
  }

  /** The result's words on the revision and which watchers relist; empty for older runs. */
  static Optional<String> relist(RecoverRun run) {
    if (!run.revisionsChecked || run.fromBackup()) return Optional.empty();
    List<String> controlPlane = new ArrayList<>(run.controlPlane);
    controlPlane.addAll(run.request.skipControlPlaneHosts());
    if (run.bumpsRevision())
      return Optional.of(
          ("the revision %s by %d%s and compacted there, above any the lost members can have"
                  + " handed out: every watcher that resumes from a revision it saw is told that it"
                  + " is compacted and must relist: kube-apiserver on every control-plane host %s"
                  + " (its watch cache lists afresh once restarted, which this runbook does on the"
                  + " hosts it stops), every informer holding an older resourceVersion (410 Gone,"
                  + " client-go relists by itself), and any other client that watches etcd (a CNI's"
                  + " datastore, backup or metrics jobs), which must relist on the compaction error")
              .formatted(
                  run.revisionAfter > 0 ? "was raised" : "is raised",
                  BUMP,
                  run.revisionAfter > 0 ? " to " + run.revisionAfter : "",
                  controlPlane));
    return Optional.of(
        ("the revision %s not raised (acknowledgeRevisionsBackward: no etcdutl from 3.5.10 on could"
                + " be had): the cluster goes on from %s's revision %d, lower than any the lost"
                + " members acknowledged after it, and a watcher that saw those waits for them,"
                + " missing every change until then. Restart so that they relist: kube-apiserver on every"
                + " control-plane host %s, every controller and kubelet, and any other client that"
                + " watches etcd (a CNI's datastore, backup or metrics jobs)")
            .formatted(
                run.forcedNewCluster ? "was" : "is",
                run.survivor.name(),
                run.survivorRevision,
                controlPlane));
  }
}
