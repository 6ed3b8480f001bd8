package io.etcdrunbooks.workflows.restore;

import io.etcdrunbooks.workflows.model.BackupRecord;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.KeyspaceDigest;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.phases.ClusterDescription;
import io.etcdrunbooks.workflows.phases.RunContext;
import io.temporal.workflow.Workflow;
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

  List<MemberPlacement> members = List.of();
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

  RestoreRun(RunContext ctx, RestoreRequest request) {
    this.ctx = ctx;
    this.request = request;
    this.target = request.etcdVersion() == null ? "" : request.etcdVersion().strip();
    this.restoreId = "r" + Workflow.getInfo().getRunId().substring(0, 8);
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

  RestoreResult result() {
    if (request.dryRun()) {
      return new RestoreResult(
          cluster(), backup, restoreId, lastSeen, lost, 0, 0, 0, versions, Map.of(), List.of(),
          true);
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
        false);
  }
}
