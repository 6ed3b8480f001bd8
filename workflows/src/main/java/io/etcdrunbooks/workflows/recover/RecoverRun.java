package io.etcdrunbooks.workflows.recover;

import io.etcdrunbooks.workflows.model.BackupRecord;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.EtcdMember;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.phases.RunContext;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What one recovery has found and done so far; each phase reads it and adds to it. */
final class RecoverRun {

  final RunContext ctx;
  final RecoverQuorumRequest request;

  List<MemberPlacement> inventory = List.of();
  ClusterState state;

  /** The member the cluster is rebuilt from; null when none answers (the backup path). */
  MemberPlacement survivor;

  /** The survivor's etcd serves (its status was read); false: its data dir was read offline. */
  boolean survivorServing;

  long survivorAppliedIndex;
  long survivorRevision;

  /** The survivor's etcd version, the one rebuilt members run. */
  String version = "";

  boolean learner;

  /** The newest verified backup; null when there is none. */
  BackupRecord backup;

  /** Each lost member (inventory order) and where it is rebuilt. */
  final Map<String, MemberPlacement> rebuildAs = new LinkedHashMap<>();

  /**
   * Lost members are fenced before FORCE_NEW_CLUSTER ({@link RecoverFencing#FENCE_LOST_MEMBERS}).
   */
  boolean fencing;

  /** Lost members whose hosts cannot be logged in to, attested destroyed by the request. */
  final java.util.Set<String> unreachableLost = new java.util.LinkedHashSet<>();

  /** Each lost member's etcd id in hex, as the survivor lists it. */
  final Map<String, String> lostIds = new LinkedHashMap<>();

  /** How each lost member was fenced, in words. */
  final List<String> fenced = new ArrayList<>();

  /**
   * The apiservers come back as soon as the survivor serves alone, before JOIN ({@link
   * RecoverDiscovery#APISERVERS_BEFORE_JOIN}).
   */
  boolean apiServersEarly;

  /** Learners are never chosen as the survivor ({@link RecoverDiscovery#SURVIVOR_NOT_LEARNER}). */
  boolean votersOnly;

  List<String> controlPlane = List.of();
  final List<String> apiServersStopped = new ArrayList<>();
  final List<String> apiServersRestarted = new ArrayList<>();
  String dataDirCopy = "";

  /** The survivor leads a cluster of one: the lost members are out of the membership. */
  boolean forcedNewCluster;

  /** The revision is looked after ({@link RecoverPatches#BUMP_REVISION}). */
  boolean revisionsChecked;

  /** The etcd release whose etcdutl rebuilds the survivor with its revision raised; "": none. */
  String restoreTool = "";

  /** That etcdutl is the survivor's own, not one brought from the binary source. */
  boolean ownTool;

  /** How far the survivor's revision was raised (0: not raised). */
  long revisionBump;

  /** The survivor's revision once it leads its cluster of one, raised (0: not read). */
  long revisionAfter;

  final Map<String, String> rebuilt = new LinkedHashMap<>();

  /** etcd's member list at the end. */
  List<EtcdMember> members = List.of();

  RecoverRun(RunContext ctx, RecoverQuorumRequest request) {
    this.ctx = ctx;
    this.request = request;
  }

  String cluster() {
    return ctx.cluster();
  }

  boolean changes() {
    return !request.dryRun();
  }

  /** No member answers with data: the newest verified backup is restored instead. */
  boolean fromBackup() {
    return survivor == null;
  }

  boolean rebuildsFromSurvivor() {
    return changes() && !fromBackup();
  }

  /** The survivor is rebuilt with its revision raised, not forced with --force-new-cluster. */
  boolean bumpsRevision() {
    return !restoreTool.isEmpty();
  }

  String what() {
    return "recovery of quorum of " + cluster();
  }

  /** The change id the survivor's flags and data dir copy are kept under. */
  String recoveryId() {
    return "recover-" + io.etcdrunbooks.workflows.common.RunIds.suffix();
  }

  /** What is lost, in words, for the plan and the result. */
  String loss() {
    if (fromBackup()) {
      return backup == null
          ? "no member answers and there is no verified backup"
          : ("no member answers with data: the newest verified backup %s (revision %d, taken"
                  + " %s) is restored, and every write after it is lost")
              .formatted(backup.id(), backup.revision(), backup.takenAt());
    }
    String against =
        backup == null
            ? "there is no verified backup to compare with"
            : backup.revision() > survivorRevision
                ? ("the newest verified backup %s holds revision %d, %d revision(s) newer than the"
                        + " survivor: RestoreCluster from it would lose less")
                    .formatted(backup.id(), backup.revision(), backup.revision() - survivorRevision)
                : "the newest verified backup %s holds revision %d, older than the survivor's"
                    .formatted(backup.id(), backup.revision());
    return ("the cluster is rebuilt from %s at revision %d (%s): writes after revision %d that"
            + " reached only %s are lost; %s")
        .formatted(
            survivor.name(),
            survivorRevision,
            survivorServing
                ? "applied index " + survivorAppliedIndex
                : "read from its data dir: its etcd does not serve",
            survivorRevision,
            List.copyOf(rebuildAs.keySet()),
            against);
  }

  /** What became of kubeadm-config (DONE). */
  final List<String> kubeadmConfig = new ArrayList<>();

  private List<String> notes() {
    List<String> notes = new ArrayList<>(List.of(loss()));
    RecoverRevision.relist(this).ifPresent(notes::add);
    notes.addAll(kubeadmConfig);
    if (fencing) notes.addAll(fenced.isEmpty() ? RecoverFencing.plan(this) : fenced);
    if (!request.skipControlPlaneHosts().isEmpty())
      notes.add(
          ("the kube-apiservers on %s were left out (their machines are gone): when they come"
                  + " back, check that their --etcd-servers name the members the cluster has now")
              .formatted(request.skipControlPlaneHosts()));
    return notes;
  }

  RecoverQuorumResult result() {
    String outcome =
        request.dryRun()
            ? RecoverQuorumResult.DRY_RUN
            : fromBackup() ? RecoverQuorumResult.RESTORED : RecoverQuorumResult.RECOVERED;
    return new RecoverQuorumResult(
        cluster(),
        outcome,
        survivor == null ? "" : survivor.name(),
        survivorRevision,
        revisionBump,
        backup == null ? "" : backup.id(),
        backup == null ? 0 : backup.revision(),
        rebuilt,
        dataDirCopy,
        members.stream().map(m -> m.name().isEmpty() ? m.hexId() : m.name()).toList(),
        apiServersRestarted,
        notes());
  }
}
