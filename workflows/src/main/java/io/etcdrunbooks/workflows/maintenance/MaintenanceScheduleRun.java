package io.etcdrunbooks.workflows.maintenance;

import io.etcdrunbooks.workflows.maintenance.MaintenanceScheduleRequest.RevisionSeen;
import io.etcdrunbooks.workflows.phases.RunContext;
import io.temporal.workflow.Workflow;
import java.util.ArrayList;
import java.util.List;

/** Where one run of a MaintenanceSchedule is: the next round, the revisions noted, the rounds. */
final class MaintenanceScheduleRun {

  final RunContext ctx;
  final MaintenanceScheduleRequest request;

  /** Workflow time the next round is due. */
  long next;

  /**
   * The round's slot is a Temporal Schedule's (its scheduled time, a backfill's in the past): taken
   * as it is, never moved to the present.
   */
  final boolean slotFromSchedule;

  final List<RevisionSeen> revisions;
  final List<String> rounds = new ArrayList<>();
  final List<String> failures = new ArrayList<>();

  MaintenanceScheduleRun(RunContext ctx, MaintenanceScheduleRequest request) {
    this(ctx, request, false);
  }

  MaintenanceScheduleRun(
      RunContext ctx, MaintenanceScheduleRequest request, boolean slotFromSchedule) {
    this.ctx = ctx;
    this.request = request;
    this.slotFromSchedule = slotFromSchedule;
    this.next = request.nextAtMillis() > 0 ? request.nextAtMillis() : Workflow.currentTimeMillis();
    this.revisions = new ArrayList<>(request.revisions());
  }

  String cluster() {
    return ctx.cluster();
  }

  int done() {
    return rounds.size() + failures.size();
  }

  boolean reachedMax() {
    return request.maxRounds() > 0 && done() >= request.maxRounds();
  }

  /**
   * The newest revision noted at least compactOlderThanMinutes before {@code now}; 0 when none is
   * that old (or no compaction is asked for).
   */
  long compactionTarget(long now) {
    if (request.compactOlderThanMinutes() <= 0) return 0;
    long cutoff = now - request.compactOlderThanMinutes() * 60_000L;
    long target = 0;
    for (RevisionSeen seen : revisions) if (seen.atMillis() <= cutoff) target = seen.revision();
    return target;
  }

  /** Keeps the newest revision old enough to compact to, and every newer one. */
  void forgetOlderThanNeeded(long now) {
    long cutoff = now - request.compactOlderThanMinutes() * 60_000L;
    while (revisions.size() > 1 && revisions.get(1).atMillis() <= cutoff) revisions.remove(0);
  }

  MaintenanceScheduleRequest continued() {
    int left = request.maxRounds() > 0 ? request.maxRounds() - done() : 0;
    return request.continuing(next, left, revisions);
  }

  MaintenanceScheduleResult result() {
    return new MaintenanceScheduleResult(cluster(), rounds, failures, revisions);
  }
}
