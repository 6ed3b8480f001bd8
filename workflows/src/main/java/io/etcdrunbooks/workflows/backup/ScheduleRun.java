package io.etcdrunbooks.workflows.backup;

import io.etcdrunbooks.workflows.phases.RunContext;
import io.temporal.workflow.Workflow;
import java.util.ArrayList;
import java.util.List;

/**
 * Where one run of a BackupSchedule is: when the next backup is due, and the backups taken and
 * failed so far.
 */
final class ScheduleRun {

  final RunContext ctx;
  final BackupScheduleRequest request;

  /** Workflow time the next backup is due. */
  long next;

  final List<String> taken = new ArrayList<>();
  final List<String> failures = new ArrayList<>();

  ScheduleRun(RunContext ctx, BackupScheduleRequest request) {
    this.ctx = ctx;
    this.request = request;
    this.next = request.nextAtMillis() > 0 ? request.nextAtMillis() : Workflow.currentTimeMillis();
  }

  String cluster() {
    return ctx.cluster();
  }

  /** Backups this run has taken or seen fail. */
  int done() {
    return taken.size() + failures.size();
  }

  boolean reachedMax() {
    return request.maxBackups() > 0 && done() >= request.maxBackups();
  }

  /** The request the run continues as new with: the next time, and the backups still to take. */
  BackupScheduleRequest continued() {
    int left = request.maxBackups() > 0 ? request.maxBackups() - done() : 0;
    return new BackupScheduleRequest(cluster(), request.intervalMinutes(), next, left);
  }

  BackupScheduleResult result() {
    return new BackupScheduleResult(cluster(), taken, failures);
  }
}
