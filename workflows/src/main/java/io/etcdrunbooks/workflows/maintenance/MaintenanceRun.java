package io.etcdrunbooks.workflows.maintenance;

import io.etcdrunbooks.workflows.activities.MaintenanceActivities.MemberSpace;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.phases.RunContext;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What one Maintenance run has found and done so far. */
final class MaintenanceRun {

  final RunContext ctx;
  final MaintenanceRequest request;

  ClusterState state;
  final Map<String, MemberSpace> before = new LinkedHashMap<>();
  final Map<String, MemberSpace> after = new LinkedHashMap<>();

  /** member -> its --quota-backend-bytes, read when a NOSPACE alarm is raised. */
  final Map<String, Long> quotas = new LinkedHashMap<>();

  /** Followers in inventory order, then the leader. */
  List<String> order = List.of();

  long compactTo;
  long compactedTo;
  final List<String> defragmented = new ArrayList<>();
  List<String> disarmed = List.of();

  MaintenanceRun(RunContext ctx, MaintenanceRequest request) {
    this.ctx = ctx;
    this.request = request;
  }

  String cluster() {
    return ctx.cluster();
  }

  boolean changes() {
    return !request.dryRun();
  }

  boolean nospace() {
    return state.alarms().stream().anyMatch(a -> a.startsWith("NOSPACE"));
  }

  String what() {
    return "maintenance of " + cluster();
  }

  MaintenanceResult result() {
    Map<String, MemberSpace> now = new LinkedHashMap<>(before);
    now.putAll(after);
    return new MaintenanceResult(
        cluster(),
        compactedTo,
        List.copyOf(before.values()),
        List.copyOf(now.values()),
        defragmented,
        disarmed);
  }
}
