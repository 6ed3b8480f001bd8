package io.etcdrunbooks.workflows.drill;

import io.etcdrunbooks.workflows.activities.DrillActivities;
import io.etcdrunbooks.workflows.activities.DrillActivities.DrillRequest;
import io.etcdrunbooks.workflows.activities.DrillActivities.TargetBackup;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.ProgressTracker;
import io.etcdrunbooks.workflows.drill.DrillRun.TargetDrill;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Workflow;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The RestoreDrill phases when no backup is named: each target's newest verified backup, fetched
 * from that target, checked, restored and compared on its own. One target's failure does not stop
 * the others; the run fails at the end naming every target that failed.
 */
final class EveryTargetDrill {

  private EveryTargetDrill() {}

  static void check(DrillRun run) {
    ProgressTracker progress = run.ctx.progress();
    DrillActivities activities = run.ctx.activities().drill;
    List<TargetBackup> newest =
        progress.record(
            "newest backup per target", () -> activities.newestPerTarget(run.activityRequest()));
    run.perTarget = new ArrayList<>();
    try {
      for (TargetBackup t : newest) {
        TargetDrill d = new TargetDrill(t.target(), t.backupId());
        run.perTarget.add(d);
        if (!t.problem().isBlank()) {
          d.failure = t.problem();
          continue;
        }
        d.checked =
            attempt(
                d,
                () ->
                    progress.record(
                        "check backup " + d.backupId + " on " + d.target,
                        () -> activities.checkBackup(request(run, d))));
      }
    } catch (RuntimeException e) {
      cleanUp(run);
      throw e;
    }
    progress.message(
        "checked on %d target(s): %s"
            .formatted(
                run.perTarget.size(),
                String.join(", ", run.perTarget.stream().map(EveryTargetDrill::state).toList())));
  }

  static void drill(DrillRun run) {
    ProgressTracker progress = run.ctx.progress();
    DrillActivities activities = run.ctx.activities().drill;
    try {
      for (TargetDrill d : run.perTarget) {
        if (d.checked == null) continue;
        d.measured =
            attempt(
                d,
                () ->
                    progress.record(
                        "restore and measure " + d.backupId + " from " + d.target,
                        () -> activities.restoreAndMeasure(request(run, d))));
      }
    } finally {
      cleanUp(run);
    }
  }

  static void compare(DrillRun run) {
    List<RestoreDrillResult.Target> targets = new ArrayList<>();
    RestoreDrillResult first = null;
    for (TargetDrill d : run.perTarget) {
      if (d.checked != null && d.measured != null) {
        RestoreDrillResult compared =
            DrillComparison.compare(run.request.cluster(), d.checked, d.measured);
        if (first == null) first = compared;
        if (!compared.passed()) d.failure = String.join("; ", compared.differences());
      }
      targets.add(
          new RestoreDrillResult.Target(
              d.target,
              d.backupId,
              d.passed(),
              d.failure == null ? List.of() : List.of(d.failure)));
    }
    List<TargetDrill> failed = run.perTarget.stream().filter(d -> !d.passed()).toList();
    DrillPhases.record(run, failed.isEmpty() && !run.perTarget.isEmpty());
    if (!failed.isEmpty() || first == null)
      throw FailureType.RestoreDrillFailed.nonRetryable(
          "restore drill of cluster '%s' failed on %s%s; take a new backup and look at the failed copies"
              .formatted(
                  run.request.cluster(),
                  failed.isEmpty()
                      ? "every target: it has none"
                      : String.join(
                          "; ",
                          failed.stream()
                              .map(
                                  d ->
                                      "target %s (backup %s): %s"
                                          .formatted(
                                              d.target,
                                              d.backupId.isBlank() ? "none" : d.backupId,
                                              d.failure))
                              .toList()),
                  passedOn(run)));
    run.result = first.withTargets(targets);
    run.ctx
        .progress()
        .message(
            "every target's newest backup restored and served what it recorded: "
                + String.join(", ", run.perTarget.stream().map(EveryTargetDrill::state).toList()));
  }

  /** The backups the outcome names: the failed targets', else every target's. */
  static String outcomeBackups(DrillRun run) {
    return String.join(",", outcomeTargets(run).stream().map(d -> d.backupId).toList());
  }

  static String outcomeTargetNames(DrillRun run) {
    return String.join(",", outcomeTargets(run).stream().map(d -> d.target).toList());
  }

  private static List<TargetDrill> outcomeTargets(DrillRun run) {
    List<TargetDrill> failed = run.perTarget.stream().filter(d -> d.failure != null).toList();
    return failed.isEmpty() ? run.perTarget : failed;
  }

  private static String passedOn(DrillRun run) {
    List<String> passed =
        run.perTarget.stream()
            .filter(TargetDrill::passed)
            .map(d -> "%s (backup %s)".formatted(d.target, d.backupId))
            .toList();
    return passed.isEmpty() ? "" : "; passed on " + String.join(", ", passed);
  }

  private static String state(TargetDrill d) {
    return "%s %s %s"
        .formatted(
            d.target, d.backupId.isBlank() ? "-" : d.backupId, d.failure == null ? "ok" : "FAILED");
  }

  private static DrillRequest request(DrillRun run, TargetDrill d) {
    return run.activityRequest().onTarget(d.target, d.backupId);
  }

  /** The step's result; its failure kept as the target's, unless the run is being cancelled. */
  private static <T> T attempt(TargetDrill d, Supplier<T> step) {
    try {
      return step.get();
    } catch (ActivityFailure e) {
      if (CancellationScope.current().isCancelRequested()) throw e;
      d.failure = Failures.rootMessage(e);
      return null;
    }
  }

  /** Every target's scratch and fetched copy, on every path (a cancelled run included). */
  private static void cleanUp(DrillRun run) {
    ProgressTracker progress = run.ctx.progress();
    DrillActivities activities = run.ctx.activities().drill;
    Workflow.newDetachedCancellationScope(
            () -> {
              for (TargetDrill d : run.perTarget) {
                if (d.backupId.isBlank()) continue;
                try {
                  progress.record(
                      "clean up " + d.target, () -> activities.cleanUp(request(run, d)));
                } catch (ActivityFailure e) {
                  progress.message(
                      "the drill's scratch space for %s was not removed: %s"
                          .formatted(d.target, e.getMessage()));
                }
              }
            })
        .run();
  }
}
