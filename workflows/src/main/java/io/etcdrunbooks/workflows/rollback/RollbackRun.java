package io.etcdrunbooks.workflows.rollback;

import io.etcdrunbooks.workflows.downgrade.DowngradeResult;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.phases.ClusterDescription;
import io.etcdrunbooks.workflows.phases.RunContext;
import io.etcdrunbooks.workflows.restore.RestoreResult;
import java.util.List;
import java.util.Map;

/** What one rollback has found and done so far; each phase reads it and adds to it. */
final class RollbackRun {

  final RunContext ctx;
  final RollbackRequest request;

  /** The cluster as discovered first. */
  ClusterState state;

  /** The version every member goes back to: the one asked for, or the oldest running. */
  String toVersion = "";

  /**
   * The cluster version has moved past toVersion: only a restore of the pre-upgrade backup goes
   * back.
   */
  boolean byRestore;

  /**
   * The cluster version has moved, on 3.6 or later and one minor past toVersion: etcd's online
   * downgrade goes back without losing a write.
   */
  boolean byDowngrade;

  DowngradeResult downgraded;

  /** Members to switch back, in order; through a restore, every member. */
  List<String> members = List.of();

  /** The cluster as the postflight, or the discovery after the restore, found it. */
  ClusterState after;

  RestoreResult restored;

  RollbackRun(RunContext ctx, RollbackRequest request) {
    this.ctx = ctx;
    this.request = request;
  }

  String cluster() {
    return ctx.cluster();
  }

  boolean changes() {
    return !request.dryRun();
  }

  /** Members are switched back one by one (not restored), and there are some. */
  boolean switchesMembers() {
    return !byRestore && !byDowngrade && !members.isEmpty();
  }

  /** "rollback of prod-1", for failure messages. */
  String what() {
    return "rollback of " + cluster();
  }

  RollbackResult result() {
    if (byDowngrade) {
      return new RollbackResult(
          cluster(),
          toVersion,
          downgraded.membersToDowngrade(),
          request.dryRun() ? ClusterDescription.memberVersions(state) : downgraded.memberVersions(),
          after.clusterVersion(),
          request.dryRun(),
          "",
          "");
    }
    if (byRestore) {
      Map<String, String> versions =
          request.dryRun() ? ClusterDescription.memberVersions(state) : restored.memberVersions();
      return new RollbackResult(
          cluster(),
          toVersion,
          members,
          versions,
          after.clusterVersion(),
          request.dryRun(),
          restored.backup().id(),
          restored.lostRevisions());
    }
    ClusterState end = after == null ? state : after;
    return new RollbackResult(
        cluster(),
        toVersion,
        members,
        ClusterDescription.memberVersions(end),
        end.clusterVersion(),
        request.dryRun(),
        "",
        "");
  }
}
