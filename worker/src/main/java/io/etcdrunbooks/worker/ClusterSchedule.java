package io.etcdrunbooks.worker;

import io.etcdrunbooks.inventory.BackupSpec;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.workflows.backup.BackupClusterRequest;
import io.etcdrunbooks.workflows.backup.BackupClusterWorkflow;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One Temporal Schedule the inventory asks for: its stable id, the runbook it starts with which
 * request, and how often.
 *
 * @param id {@code etcd-runbooks-backup-<cluster>} or {@code etcd-runbooks-drill-<cluster>}
 * @param cluster the cluster it is for
 * @param workflowType the runbook it starts
 * @param request the runbook's request (one JSON object)
 * @param every the interval
 */
record ClusterSchedule(
    String id, String cluster, String workflowType, Object request, Duration every) {

  static final String BACKUP_PREFIX = "etcd-runbooks-backup-";
  static final String DRILL_PREFIX = "etcd-runbooks-drill-";

  /** The drill runbook's type; started by name so the schedule needs none of its classes. */
  static final String RESTORE_DRILL = "RestoreDrill";

  /** What the cluster's backup settings ask for: nothing when {@code backup.schedule: false}. */
  static List<ClusterSchedule> of(ClusterSpec spec) {
    BackupSpec backup = spec.backupSettings();
    List<ClusterSchedule> schedules = new ArrayList<>();
    if (!backup.scheduled()) return schedules;
    String cluster = spec.name();
    schedules.add(
        new ClusterSchedule(
            BACKUP_PREFIX + cluster,
            cluster,
            BackupClusterWorkflow.TYPE,
            BackupClusterRequest.of(
                cluster, "schedule " + BACKUP_PREFIX + cluster, RunbookOptions.defaults()),
            Duration.ofMinutes(backup.scheduleIntervalMinutesOrDefault())));
    if (backup.drillIntervalMinutesOrDefault() > 0) {
      schedules.add(
          new ClusterSchedule(
              DRILL_PREFIX + cluster,
              cluster,
              RESTORE_DRILL,
              Map.of("cluster", cluster),
              Duration.ofMinutes(backup.drillIntervalMinutesOrDefault())));
    }
    return schedules;
  }

  /** The id of the workflows it starts (Temporal appends the scheduled time). */
  String workflowId() {
    return (workflowType.equals(RESTORE_DRILL) ? "drill-" : "backup-") + cluster;
  }
}
