package io.etcdrunbooks.workflows.backup;

import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Runbook;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.util.List;

/**
 * A long-running per-cluster schedule: a BackupCluster runbook now and then every interval, on
 * workflow time, so a restarted worker resumes the schedule where it was. {@code pause} holds it
 * (the times missed meanwhile are skipped, not caught up), {@code resume} lets it go on; a failed
 * backup is recorded and the schedule goes on.
 */
@WorkflowInterface
public interface BackupScheduleWorkflow extends Runbook {

  String TYPE = "BackupSchedule";

  /**
   * Failure types the runbook ends with ({@link FailureType}): only a cluster unknown when the
   * inventory's interval is read; a failed backup is recorded and the schedule goes on. Cancel it
   * to stop it.
   */
  List<FailureType> FAILURES = List.of(FailureType.UnknownCluster);

  @WorkflowMethod(name = TYPE)
  BackupScheduleResult run(BackupScheduleRequest request);

  static String workflowId(String cluster) {
    return "backup-schedule-" + cluster;
  }
}
