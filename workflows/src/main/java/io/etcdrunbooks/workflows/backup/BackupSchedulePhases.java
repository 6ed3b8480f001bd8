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
import io.temporal.client.WorkflowExecutionAlreadyStarted;
import io.temporal.failure.ChildWorkflowFailure;
import io.temporal.workflow.ChildWorkflowOptions;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

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

  /** Memo keys the API reads back (RunbookStarter's). */
  private static final String STARTED_BY = "startedBy";

  private static final String CLUSTER = "cluster";

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
    // a Temporal Schedule's one round: the schedule keeps the time, a gauge left at this slot would
    // read as overdue once the round has ended
    if (run.request.maxBackups() != 1) run.ctx.progress().scheduleNext(run.next);
    Workflow.sleep(Duration.ofMillis(Math.max(0, run.next - Workflow.currentTimeMillis())));
    run.ctx.progress().awaitResumed();
  }

  private static void backup(ScheduleRun run) {
    ProgressTracker progress = run.ctx.progress();
    int number = run.done() + 1;
    ChildWorkflowOptions.Builder options =
        RunbookSearchAttributes.inherited(
                ChildWorkflowOptions.newBuilder(), BackupClusterWorkflow.TYPE, run.cluster())
            // the backup runbook's own id: a scheduled and a manual backup of one cluster never
            // run at once
            .setWorkflowId(BackupClusterWorkflow.workflowId(run.cluster()))
            .setWorkflowIdReusePolicy(
                WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE);
    if (BackupPatches.SCHEDULED_BACKUP_STARTED_BY.applies()) {
      // so that a manual start refused meanwhile names the schedule
      options.setMemo(Map.of(STARTED_BY, startedBy(), CLUSTER, run.cluster()));
    }
    BackupClusterWorkflow backup =
        Workflow.newChildWorkflowStub(BackupClusterWorkflow.class, options.build());
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
      String why =
          e.getCause() instanceof WorkflowExecutionAlreadyStarted
              ? alreadyRunning(run.cluster())
              : Failures.rootMessage(e);
      run.failures.add(Instant.ofEpochMilli(Workflow.currentTimeMillis()) + ": " + why);
      progress.message(
          "scheduled backup %s failed, the schedule goes on: %s".formatted(number, why));
    }
    planNext(run);
  }

  /**
   * Another backup of the cluster (a manual one, or the old loop's) holds the backup runbook's id:
   * this slot takes none, and says which one runs.
   */
  private static String alreadyRunning(String cluster) {
    // Temporal's refusal names no run id: the id is the one a manual backup takes
    String id = BackupClusterWorkflow.workflowId(cluster);
    return ("skipped: a backup of %s already runs as workflow %s; this slot's backup is that one"
            + " (GET /api/v1/runbooks/%s follows it)")
        .formatted(cluster, id, id);
  }

  /** Who started this schedule's run (a Temporal Schedule's memo), else the run itself. */
  private static String startedBy() {
    return Workflow.getMemo(STARTED_BY, String.class) instanceof String memo && !memo.isBlank()
        ? memo
        : BackupScheduleWorkflow.TYPE + " " + Workflow.getInfo().getWorkflowId();
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
