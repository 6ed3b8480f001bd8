package io.etcdrunbooks.workflows.downgrade;

import io.etcdrunbooks.workflows.activities.DowngradeActivities.DowngradeStatus;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.EtcdVersion;
import io.etcdrunbooks.workflows.model.MemberStatus;
import io.etcdrunbooks.workflows.phases.ClusterDescription;
import io.etcdrunbooks.workflows.phases.RunContext;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What one downgrade has found and done so far; each phase reads it and adds to it. */
final class DowngradeRun {

  final RunContext ctx;
  final DowngradeRequest request;

  /** The cluster as discovered first. */
  ClusterState state;

  /** Where etcd's downgrade stood at the preflight: enabled by a run before this one? */
  DowngradeStatus before;

  /** Members to switch, in order, the leader last. */
  List<String> members = List.of();

  /** The version each member ran before the downgrade, to put it back on when a step fails. */
  final Map<String, String> versionsBefore = new LinkedHashMap<>();

  /** The storage version every member reported before the first was switched. */
  String storageVersion = "";

  /** The cluster as the postflight found it. */
  ClusterState after;

  DowngradeRun(RunContext ctx, DowngradeRequest request) {
    this.ctx = ctx;
    this.request = request;
  }

  String cluster() {
    return ctx.cluster();
  }

  String toVersion() {
    return request.toVersion();
  }

  /** The target as etcd's downgrade takes it: 3.5. */
  String targetMinor() {
    return EtcdVersion.parse("toVersion", request.toVersion()).minorLabel();
  }

  boolean changes() {
    return !request.dryRun();
  }

  boolean switchesMembers() {
    return !members.isEmpty();
  }

  /** "downgrade of prod-1", for failure messages. */
  String what() {
    return "downgrade of " + cluster();
  }

  void rememberVersionsBefore() {
    for (MemberStatus m : state.members()) versionsBefore.put(m.name(), m.serverVersion());
  }

  DowngradeResult result() {
    ClusterState end = after == null ? state : after;
    return new DowngradeResult(
        cluster(),
        toVersion(),
        members,
        ClusterDescription.memberVersions(end),
        end.clusterVersion(),
        storageVersion,
        request.dryRun());
  }
}
