package io.etcdrunbooks.workflows.backup;

import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.RunbookWorkflow;
import io.etcdrunbooks.workflows.model.BackupRecord;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.phases.Activities;
import io.temporal.api.enums.v1.WorkflowIdReusePolicy;
import io.temporal.failure.ChildWorkflowFailure;
import io.temporal.workflow.ChildWorkflowOptions;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

public final class BackupScheduleWorkflowImpl extends RunbookWorkflow implements BackupScheduleWorkflow {

  /** Backups per run before continuing as new, which keeps the history (and the progress list) short. */
  static final int BACKUPS_PER_RUN = 50;

  private final Activities activities = new Activities();

  public BackupScheduleWorkflowImpl() {
    super(TYPE);
  }

  @Override
  public BackupScheduleResult run(BackupScheduleRequest request) {
    return runFor(request.cluster(), () -> schedule(request));
  }

  private BackupScheduleResult schedule(BackupScheduleRequest request) {
    String cluster = request.cluster();
    long next = request.nextAtMillis() > 0 ? request.nextAtMillis() : Workflow.currentTimeMillis();
    List<String> taken = new ArrayList<>();
    List<String> failures = new ArrayList<>();
    while (true) {
      progress.phase(Phase.WAITING);
      progress.step("next backup at " + Instant.ofEpochMilli(next));
      Workflow.sleep(Duration.ofMillis(Math.max(0, next - Workflow.currentTimeMillis())));
      progress.awaitResumed();

      progress.phase(Phase.BACKUP);
      int number = taken.size() + failures.size() + 1;
      BackupClusterWorkflow backup = Workflow.newChildWorkflowStub(BackupClusterWorkflow.class, ChildWorkflowOptions.newBuilder()
          // the backup runbook's own id: a scheduled and a manual backup of one cluster never run at once
          .setWorkflowId(BackupClusterWorkflow.workflowId(cluster))
          .setWorkflowIdReusePolicy(WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE)
          .build());
      try {
        BackupRecord record = progress.record("scheduled backup " + number,
            () -> backup.backup(new BackupClusterRequest(cluster, "scheduled")));
        taken.add(record.id());
        progress.message("last backup " + record.id() + " at revision " + record.revision());
      } catch (ChildWorkflowFailure e) {
        failures.add(Instant.ofEpochMilli(Workflow.currentTimeMillis()) + ": " + Failures.rootMessage(e));
        progress.message("scheduled backup " + number + " failed, the schedule goes on: " + Failures.rootMessage(e));
      }

      long interval = Duration.ofMinutes(request.intervalMinutes() > 0 ? request.intervalMinutes()
          : activities.backup.scheduleIntervalMinutes(new ClusterRef(cluster))).toMillis();
      long now = Workflow.currentTimeMillis();
      // the next slot after now: slots missed while paused or while a backup ran long are skipped, not caught up
      do {
        next += interval;
      } while (next <= now);
      int done = taken.size() + failures.size();
      if (request.maxBackups() > 0 && done >= request.maxBackups()) {
        progress.phase(Phase.DONE);
        return new BackupScheduleResult(cluster, taken, failures);
      }
      if (done >= BACKUPS_PER_RUN) {
        int left = request.maxBackups() > 0 ? request.maxBackups() - done : 0;
        Workflow.continueAsNew(new BackupScheduleRequest(cluster, request.intervalMinutes(), next, left));
      }
    }
  }
}
