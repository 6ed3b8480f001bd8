package io.etcdrunbooks.workflows.drill;

import static io.etcdrunbooks.workflows.phases.RunbookPhase.always;

import io.etcdrunbooks.workflows.activities.DrillActivities;
import io.etcdrunbooks.workflows.activities.DrillActivities.DrillOutcome;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.ProgressTracker;
import io.etcdrunbooks.workflows.phases.PhaseRunner;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Workflow;
import java.time.Instant;

/** The RestoreDrill runbook, phase by phase. It never reaches the cluster's members. */
public final class DrillPhases {

  public static final PhaseRunner<DrillRun> RUNNER =
      new PhaseRunner<>(
          always(
              Phase.PREFLIGHT,
              "checks the backup end to end as a restore does: without a backupId, the newest"
                  + " verified backup of each target the cluster has (worker, off-site host, object"
                  + " store), each fetched from that target into the drill's scratch space; with"
                  + " one, that backup (downloaded from the object store when the worker has no"
                  + " copy); its SHA-256, its decryption, etcd's own tool reading its recorded"
                  + " revision and hash",
              DrillPhases::checkBackup),
          always(
              Phase.DRILL,
              "restores each with its etcd version's own tool (etcdutl from 3.5 on, etcdctl before)"
                  + " into a scratch directory on the worker, starts a throwaway etcd of that version"
                  + " on a free 127.0.0.1 port and reads its revision, the live keys and hashkv at the"
                  + " backup's revision; the throwaway etcd is stopped and the scratch directory"
                  + " removed on every path, a failed or cancelled run included",
              DrillPhases::drill),
          always(
              Phase.POSTFLIGHT,
              "compares them with what each backup recorded (revision, live keys, keyspace hash)"
                  + " and records the outcome for the worker's metrics; a difference, or a copy that"
                  + " could not be checked or restored, fails the run naming every target that"
                  + " failed, its backup and what differed",
              DrillPhases::compare),
          always(
              Phase.DONE,
              "the result: the backup, its target, the expected and actual values, passed, and one"
                  + " entry per target drilled",
              run -> {}));

  private DrillPhases() {}

  private static DrillActivities activities(DrillRun run) {
    return run.ctx.activities().drill;
  }

  private static void checkBackup(DrillRun run) {
    if (run.everyTarget()) {
      EveryTargetDrill.check(run);
      return;
    }
    ProgressTracker progress = run.ctx.progress();
    run.backup =
        progress.record("check backup", () -> activities(run).checkBackup(run.activityRequest()));
    progress.message(
        "backup %s of etcd %s checked: revision %d"
            .formatted(
                run.backupName(),
                run.backup.backup().etcdVersion(),
                run.backup.backup().revision()));
  }

  private static void drill(DrillRun run) {
    if (run.perTarget != null) {
      EveryTargetDrill.drill(run);
      return;
    }
    ProgressTracker progress = run.ctx.progress();
    try {
      run.measured =
          progress.record(
              "restore and measure",
              () -> activities(run).restoreAndMeasure(run.activityRequest()));
    } finally {
      // the activity removes its scratch itself; this reaches what a worker that died left
      Workflow.newDetachedCancellationScope(
              () -> {
                try {
                  progress.record("clean up", () -> activities(run).cleanUp(run.activityRequest()));
                } catch (ActivityFailure e) {
                  progress.message(
                      "the drill's scratch directory was not removed: " + e.getMessage());
                }
              })
          .run();
    }
  }

  private static void compare(DrillRun run) {
    if (run.perTarget != null) {
      EveryTargetDrill.compare(run);
      return;
    }
    RestoreDrillResult result =
        DrillComparison.compare(run.request.cluster(), run.backup, run.measured);
    run.result = result;
    record(run, result.passed());
    if (!result.passed())
      throw FailureType.RestoreDrillFailed.nonRetryable(
          "restore drill of backup %s of cluster '%s' (target %s) failed: %s; the backup is not what it recorded, take a new backup and look at this one"
              .formatted(
                  result.backupId(),
                  result.cluster(),
                  result.target(),
                  String.join("; ", result.differences())));
    run.ctx
        .progress()
        .message(
            "backup %s (%s) restored with %s and served revision %d, %d live keys%s"
                .formatted(
                    result.backupId(),
                    result.target(),
                    result.tool(),
                    result.actualRevision(),
                    result.actualLiveKeys(),
                    result.notCompared().isEmpty()
                        ? ", keyspace hash as recorded"
                        : "; not compared: " + result.notCompared()));
  }

  /**
   * Records a drill that failed before its comparison (its backup unreadable, the restore or the
   * throwaway etcd failing); a failure to record it is left to the log.
   */
  static void recordFailure(DrillRun run) {
    if (run.recorded) return;
    try {
      Workflow.newDetachedCancellationScope(() -> record(run, false)).run();
    } catch (ActivityFailure e) {
      run.ctx.progress().message("the drill's outcome was not recorded: " + e.getMessage());
    }
  }

  static void record(DrillRun run, boolean passed) {
    run.recorded = true;
    run.ctx
        .progress()
        .run(
            "record outcome",
            () ->
                activities(run)
                    .recordResult(
                        new DrillOutcome(
                            run.request.cluster(),
                            run.perTarget != null
                                ? EveryTargetDrill.outcomeBackups(run)
                                : run.backup == null
                                    ? run.activityRequest().backupId()
                                    : run.backup.backup().id(),
                            run.perTarget != null
                                ? EveryTargetDrill.outcomeTargetNames(run)
                                : run.backup == null ? "" : run.backup.target(),
                            passed,
                            Instant.ofEpochMilli(Workflow.currentTimeMillis()).toString())));
  }
}
