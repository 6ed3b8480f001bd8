package io.etcdrunbooks.workflows.backup;

import static io.etcdrunbooks.workflows.phases.RunbookPhase.always;
import static io.etcdrunbooks.workflows.phases.RunbookPhase.when;

import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.ProgressTracker;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.common.RunbookSearchAttributes;
import io.etcdrunbooks.workflows.model.BackupRecord;
import io.etcdrunbooks.workflows.phases.PhaseRunner;
import io.temporal.api.enums.v1.WorkflowIdReusePolicy;
import io.temporal.failure.ChildWorkflowFailure;
import io.temporal.workflow.ChildWorkflowOptions;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.time.Instant;

/**
 * The BackupSchedule runbook, phase by phase: its phases are one round, and the schedule goes round
 * until maxBackups, or until it is cancelled. After {@link #BACKUPS_PER_RUN} backups it continues
 * as new, carrying the next time over.
 */
public final class BackupSchedulePhases {

  /**
   * Backups per run before continuing as new, which keeps the history (and the progress list)
   * short.
   */
  static final int BACKUPS_PER_RUN = 50;

  public static final PhaseRunner<ScheduleRun> RUNNER =
      new PhaseRunner<>(
          always(
              Phase.WAITING,
              "waits on workflow time until the next backup is due; pause holds it here, and times missed"
                  + " meanwhile are skipped, not caught up",
              BackupSchedulePhases::await),
          always(
              Phase.BACKUP,
              "runs a BackupCluster runbook as a child under the backup runbook's own id; a failed backup is"
                  + " recorded and the schedule goes on; then the next time is set, an interval on (the inventory's, read each"
                  + " time, unless the request gives one)",
              BackupSchedulePhases::backup),
          when(
              Phase.DONE,
              "after maxBackups backups: the backups taken and those that failed",
              ScheduleRun::reachedMax,
              run -> {}));

  private BackupSchedulePhases() {}

  /**
   * Goes round until maxBackups (the result), continuing as new every {@link #BACKUPS_PER_RUN}
   * backups.
   */
  static BackupScheduleResult run(ScheduleRun run, ProgressTracker progress) {
    while (true) {
      RUNNER.run(run, progress);
      if (run.reachedMax()) return run.result();
      if (run.done() >= BACKUPS_PER_RUN) Workflow.continueAsNew(run.continued());
    }
  }

  private static void await(ScheduleRun run) {
    run.ctx.progress().step("next backup at " + Instant.ofEpochMilli(run.next));
    run.ctx.progress().scheduleNext(run.next);
    Workflow.sleep(Duration.ofMillis(Math.max(0, run.next - Workflow.currentTimeMillis())));
    run.ctx.progress().awaitResumed();
  }

  private static void backup(ScheduleRun run) {
    ProgressTracker progress = run.ctx.progress();
    int number = run.done() + 1;
    BackupClusterWorkflow backup =
        Workflow.newChildWorkflowStub(
            BackupClusterWorkflow.class,
            RunbookSearchAttributes.inherited(
                    ChildWorkflowOptions.newBuilder(), BackupClusterWorkflow.TYPE, run.cluster())
                // the backup runbook's own id: a scheduled and a manual backup of one cluster never
                // run at once
                .setWorkflowId(BackupClusterWorkflow.workflowId(run.cluster()))
                .setWorkflowIdReusePolicy(
                    WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE)
                .build());
    try {
      BackupRecord record =
          progress.record(
              "scheduled backup " + number,
              () ->
                  backup.backup(
                      BackupClusterRequest.of(
                          run.cluster(), "scheduled", RunbookOptions.defaults())));
      run.taken.add(record.id());
      progress.message("last backup " + record.id() + " at revision " + record.revision());
    } catch (ChildWorkflowFailure e) {
      run.failures.add(
          Instant.ofEpochMilli(Workflow.currentTimeMillis()) + ": " + Failures.rootMessage(e));
      progress.message(
          "scheduled backup %s failed, the schedule goes on: %s"
              .formatted(number, Failures.rootMessage(e)));
    }
    planNext(run);
  }

  /**
   * The next slot after now: slots missed while paused or while a backup ran long are skipped, not
   * caught up.
   */
  private static void planNext(ScheduleRun run) {
    long interval =
        Duration.ofMinutes(
                run.request.intervalMinutes() > 0
                    ? run.request.intervalMinutes()
                    : run.ctx.activities().backup.scheduleIntervalMinutes(run.ctx.ref()))
            .toMillis();
    long now = Workflow.currentTimeMillis();
    do {
      run.next += interval;
    } while (run.next <= now);
  }
}
