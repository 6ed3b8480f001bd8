package io.etcdrunbooks.workflows.restore;

import io.etcdrunbooks.workflows.common.RunIds;
import io.etcdrunbooks.workflows.model.BackupRecord;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.KeyspaceDigest;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.phases.ClusterDescription;
import io.etcdrunbooks.workflows.phases.RunContext;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What one restore has found and done so far; each phase reads it and adds to it. */
final class RestoreRun {

  final RunContext ctx;
  final RestoreRequest request;

  /** The etcdVersion asked for, stripped; "" keeps the version installed on each member. */
  final String target;

  /** In the new cluster token and the names of the data dirs kept aside. */
  final String restoreId;

  /** The members restored: the inventory's, or the new ones of a restore onto new hosts. */
  List<MemberPlacement> members = List.of();

  /** A restore onto new hosts: the inventory's members, left running; empty otherwise. */
  List<MemberPlacement> oldMembers = List.of();

  /** The backup goes onto new hosts (RestoreRequest.newMembers), as a new cluster. */
  boolean ontoNewHosts;

  List<String> controlPlane = List.of();

  /** The highest revision a member reported before the restore (0: none answered). */
  long lastSeen;

  BackupRecord backup;

  /** The version each member runs after the restore. */
  final Map<String, String> versions = new LinkedHashMap<>();

  /** The version whose tool restores each member; "" (or none) for the member's own. */
  final Map<String, String> restoreTools = new LinkedHashMap<>();

  String lost = "";
  final Map<String, String> keptAside = new LinkedHashMap<>();
  final List<String> apiServersStopped = new ArrayList<>();
  long bump;
  KeyspaceDigest digest;

  /** The cluster as the postflight found it. */
  ClusterState after;

  final List<String> apiServersRestarted = new ArrayList<>();

  /** "cp1: kube-controller-manager.yaml" for each manifest moved out and back. */
  final List<String> controllersRestarted = new ArrayList<>();

  /** Whether the preflight compared the EncryptionConfiguration (runs since the change). */
  boolean checksEncryptionConfig;

  /** Control-plane hosts where the backup's EncryptionConfiguration was put back. */
  final List<String> encryptionConfigPutBack = new ArrayList<>();

  /** Whether this run restarts the controllers after the apiservers (runs since the change). */
  boolean restartsControllers;

  RestoreRun(RunContext ctx, RestoreRequest request) {
    this.ctx = ctx;
    this.request = request;
    this.target = request.etcdVersion() == null ? "" : request.etcdVersion().strip();
    this.restoreId = "r" + RunIds.suffix();
  }

  String cluster() {
    return ctx.cluster();
  }

  boolean changes() {
    return !request.dryRun();
  }

  /** "restore of prod-1", for refusals. */
  String what() {
    return "restore of " + cluster();
  }

  /** "restore of prod-1 from backup b-7", for failures after the backup was chosen. */
  String whatFromBackup() {
    return what() + " from backup " + backup.id();
  }

  /** A restore onto new hosts leaves the old members running: the operator must stop them. */
  List<String> oldMembersLeftRunning() {
    return ontoNewHosts ? RestoreNewHosts.oldMembersLeftRunning(this) : List.of();
  }

  /**
   * Seed 001: after a restore the nodes' components may hold resource versions the cluster no
   * longer has; their kubelets are the operator's to restart (the worker reaches the control-plane
   * hosts only).
   */
  List<String> kubeletsToRestart() {
    List<String> kubelets = new ArrayList<>(controlPlane);
    kubelets.add("every worker node");
    return kubelets;
  }

  RestoreResult result() {
    if (request.dryRun()) {
      return new RestoreResult(
          cluster(),
          backup,
          restoreId,
          lastSeen,
          lost,
          0,
          0,
          0,
          versions,
          Map.of(),
          List.of(),
          true,
          oldMembersLeftRunning(),
          List.of(),
          List.of(),
          List.of());
    }
    return new RestoreResult(
        cluster(),
        backup,
        restoreId,
        lastSeen,
        lost,
        bump,
        digest.revision(),
        digest.keyCount(),
        ClusterDescription.memberVersions(after),
        Map.copyOf(keptAside),
        apiServersRestarted,
        false,
        oldMembersLeftRunning(),
        List.copyOf(controllersRestarted),
        restartsControllers ? kubeletsToRestart() : List.of(),
        List.copyOf(encryptionConfigPutBack));
  }
}
