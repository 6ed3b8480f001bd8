package io.etcdrunbooks.workflows.drill;

import io.etcdrunbooks.workflows.activities.DrillActivities.DrillBackup;
import io.etcdrunbooks.workflows.activities.DrillActivities.DrillMeasurement;
import io.etcdrunbooks.workflows.activities.DrillActivities.DrillRequest;
import io.etcdrunbooks.workflows.phases.RunContext;
import io.temporal.workflow.Workflow;
import java.util.List;

/** What one RestoreDrill runbook has done so far; each phase reads it and adds to it. */
final class DrillRun {

  final RunContext ctx;
  final RestoreDrillRequest request;

  /** The scratch directory's name: the run id, the same on replay and on every retry. */
  final String drillId;

  DrillBackup backup;
  DrillMeasurement measured;
  RestoreDrillResult result;

  /** The outcome is recorded for the metrics (once per run). */
  boolean recorded;

  /** Each target's drill, in the targets' order; null while one backup is drilled. */
  List<TargetDrill> perTarget;

  /** The drill of one target's newest verified backup, fetched from that target. */
  static final class TargetDrill {
    final String target;
    final String backupId;
    DrillBackup checked;
    DrillMeasurement measured;

    /** Why it failed, in words; null while it has not. */
    String failure;

    TargetDrill(String target, String backupId) {
      this.target = target;
      this.backupId = backupId;
    }

    boolean passed() {
      return failure == null && checked != null && measured != null;
    }
  }

  private DrillRun(RunContext ctx, RestoreDrillRequest request, String drillId) {
    this.ctx = ctx;
    this.request = request;
    this.drillId = drillId;
  }

  static DrillRun start(RunContext ctx, RestoreDrillRequest request) {
    return new DrillRun(ctx, request, Workflow.getInfo().getRunId());
  }

  /** The activities' request: the backup as checked once there is one, else as asked. */
  DrillRequest activityRequest() {
    String id =
        backup != null
            ? backup.backup().id()
            : request.backupId() == null ? "" : request.backupId();
    return new DrillRequest(request.cluster(), id, drillId, "");
  }

  /** No backup named: every target's newest is drilled (runs started since the change). */
  boolean everyTarget() {
    boolean named = request.backupId() != null && !request.backupId().isBlank();
    return !named && DrillPatches.EVERY_TARGET.applies();
  }

  String backupName() {
    if (backup != null) return backup.backup().id() + " (" + backup.target() + ")";
    return request.backupId() == null || request.backupId().isBlank()
        ? "the newest backup"
        : request.backupId();
  }
}
