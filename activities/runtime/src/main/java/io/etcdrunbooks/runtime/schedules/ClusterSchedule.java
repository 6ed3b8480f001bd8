package io.etcdrunbooks.runtime.schedules;

import io.etcdrunbooks.inventory.BackupSpec;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.workflows.backup.BackupScheduleRequest;
import io.etcdrunbooks.workflows.backup.BackupScheduleWorkflow;
import io.etcdrunbooks.workflows.maintenance.MaintenanceScheduleRequest;
import io.etcdrunbooks.workflows.maintenance.MaintenanceScheduleWorkflow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One Temporal Schedule of a cluster: its stable id, the runbook it starts with which request, and
 * how often. A backup or maintenance schedule starts one round of the schedule runbook
 * (BackupSchedule, MaintenanceSchedule with at most one round), which runs the real work as a child
 * under the id a manual start uses ({@code backup-<cluster>}, the cluster's change id): Temporal
 * then refuses a second one of the cluster, whoever starts it.
 *
 * @param id {@code etcd-runbooks-backup-<cluster>}, {@code etcd-runbooks-drill-<cluster>} or {@code
 *     etcd-runbooks-maintenance-<cluster>}
 * @param cluster the cluster it is for
 * @param workflowType the runbook it starts
 * @param request the runbook's request (one JSON object)
 * @param every the interval
 * @param workflowId the id of the workflows it starts (Temporal appends the scheduled time)
 */
public record ClusterSchedule(
    String id,
    String cluster,
    String workflowType,
    Object request,
    Duration every,
    String workflowId) {

  public static final String BACKUP_PREFIX = "etcd-runbooks-backup-";
  public static final String DRILL_PREFIX = "etcd-runbooks-drill-";
  public static final String MAINTENANCE_PREFIX = "etcd-runbooks-maintenance-";

  /** The drill runbook's type; started by name so the schedule needs none of its classes. */
  static final String RESTORE_DRILL = "RestoreDrill";

  /** What the cluster's backup settings ask for: nothing when {@code backup.schedule: false}. */
  public static List<ClusterSchedule> of(ClusterSpec spec) {
    BackupSpec backup = spec.backupSettings();
    List<ClusterSchedule> schedules = new ArrayList<>();
    if (!backup.scheduled()) return schedules;
    String cluster = spec.name();
    schedules.add(backup(cluster, backup.scheduleIntervalMinutesOrDefault()));
    if (backup.drillIntervalMinutesOrDefault() > 0) {
      schedules.add(
          new ClusterSchedule(
              DRILL_PREFIX + cluster,
              cluster,
              RESTORE_DRILL,
              Map.of("cluster", cluster),
              Duration.ofMinutes(backup.drillIntervalMinutesOrDefault()),
              "drill-" + cluster));
    }
    return schedules;
  }

  /** A backup every {@code minutes}: one BackupSchedule round, its BackupCluster the child. */
  public static ClusterSchedule backup(String cluster, int minutes) {
    return new ClusterSchedule(
        BACKUP_PREFIX + cluster,
        cluster,
        BackupScheduleWorkflow.TYPE,
        BackupScheduleRequest.oneRound(cluster, minutes),
        Duration.ofMinutes(minutes),
        "scheduled-backup-" + cluster);
  }

  /**
   * A Maintenance every interval as the request asks: one MaintenanceSchedule round, the revisions
   * it dates carried from round to round by the schedule (the last round's result).
   */
  public static ClusterSchedule maintenance(MaintenanceScheduleRequest request) {
    MaintenanceScheduleRequest oneRound = request.stoppingAfter(1);
    return new ClusterSchedule(
        MAINTENANCE_PREFIX + request.cluster(),
        request.cluster(),
        MaintenanceScheduleWorkflow.TYPE,
        oneRound,
        Duration.ofMinutes(oneRound.effectiveIntervalMinutes()),
        "scheduled-maintenance-" + request.cluster());
  }

  /** Whether the worker keeps it from the inventory (backup and drill), not the API. */
  boolean fromInventory() {
    return id.startsWith(BACKUP_PREFIX) || id.startsWith(DRILL_PREFIX);
  }

  static boolean fromInventory(String scheduleId) {
    return scheduleId.startsWith(BACKUP_PREFIX) || scheduleId.startsWith(DRILL_PREFIX);
  }
}
