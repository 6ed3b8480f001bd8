package io.etcdrunbooks.api;

import io.etcdrunbooks.inventory.BackupSpec;
import io.etcdrunbooks.inventory.InventorySource;
import io.etcdrunbooks.runtime.schedules.ClusterSchedule;
import io.etcdrunbooks.runtime.schedules.RunbookSchedules;
import io.etcdrunbooks.runtime.schedules.SchedulesConfig;
import io.etcdrunbooks.workflows.RunbookCatalog;
import io.etcdrunbooks.workflows.backup.BackupScheduleRequest;
import io.etcdrunbooks.workflows.maintenance.MaintenanceScheduleRequest;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import jakarta.inject.Singleton;
import java.time.Instant;
import java.util.List;

/**
 * What the API's schedule endpoints do: make the cluster's one Temporal Schedule of that kind as
 * asked, now, instead of starting a loop beside it. A cluster's backup schedule is the inventory's
 * ({@code backup.intervalMinutes}), which every worker start applies again, so the API applies it
 * now and refuses another interval; its maintenance schedule has no inventory setting and is the
 * caller's.
 */
@Singleton
public final class ClusterSchedules {

  private final RunbookSchedules schedules;
  private final SchedulesConfig config;
  private final InventorySource inventory;
  private final StartRules rules;

  ClusterSchedules(
      RunbookSchedules schedules,
      SchedulesConfig config,
      InventorySource inventory,
      StartRules rules) {
    this.schedules = schedules;
    this.config = config;
    this.inventory = inventory;
    this.rules = rules;
  }

  /**
   * The cluster's schedule as it is after the call.
   *
   * @param applied created, updated or unchanged
   * @param nextActionTimes when its next runs start (none while paused)
   * @param message what it does and how to hold it
   */
  public record Kept(
      String scheduleId,
      String cluster,
      String workflowType,
      long intervalMinutes,
      boolean paused,
      String note,
      List<Instant> nextActionTimes,
      String applied,
      String message) {}

  Kept backup(BackupScheduleRequest request, String by) {
    rules.of(RunbookCatalog.BACKUP_SCHEDULE).validate().accept(request);
    String cluster = request.cluster();
    BackupSpec backup = inventory.get().cluster(cluster).backupSettings();
    String id = ClusterSchedule.BACKUP_PREFIX + cluster;
    refuseWhenOff(id);
    if (!backup.scheduled()) {
      throw new StartChecks.RunbookRefused(
          ("cluster %s says backup.schedule: false in the inventory: it has no backup schedule,"
                  + " and a worker start deletes one made for it. Remove that line (or set it"
                  + " true) and call this again, or take a backup now with POST"
                  + " /api/v1/clusters/%s/backup")
              .formatted(cluster, cluster));
    }
    int minutes = backup.scheduleIntervalMinutesOrDefault();
    if (request.intervalMinutes() != 0 && request.intervalMinutes() != minutes) {
      throw new StartChecks.RunbookRefused(
          ("the interval of %s is the inventory's backup.intervalMinutes (%d%s), which every"
                  + " worker start applies again: write backup.intervalMinutes: %d into cluster"
                  + " %s's inventory entry and call this again (intervalMinutes 0 or %d) to"
                  + " apply it now, no worker restart needed")
              .formatted(
                  id,
                  minutes,
                  backup.intervalMinutes() == null ? ", its default" : "",
                  request.intervalMinutes(),
                  cluster,
                  request.intervalMinutes()));
    }
    return answer(
        keep(ClusterSchedule.backup(cluster, minutes), by),
        "a backup of %s every %d minutes as the inventory says (backup.intervalMinutes), never"
                .formatted(cluster, minutes)
            + " beside another backup of it: each run's BackupCluster is workflow backup-"
            + cluster
            + ", the id a manual backup takes. Pause it in the Web UI's Schedules page or with"
            + " temporal schedule toggle --schedule-id "
            + id
            + " --pause --reason ...");
  }

  Kept maintenance(MaintenanceScheduleRequest request, String by) {
    rules.of(RunbookCatalog.MAINTENANCE_SCHEDULE).validate().accept(request);
    inventory.get().cluster(request.cluster());
    ClusterSchedule wanted = ClusterSchedule.maintenance(request);
    refuseWhenOff(wanted.id());
    return answer(
        keep(wanted, by),
        ("a Maintenance of %s every %d minutes%s, under the cluster's change id (a round that"
                + " finds another change running is skipped and recorded). Pause it in the Web"
                + " UI's Schedules page or with temporal schedule toggle --schedule-id %s --pause"
                + " --reason ...; delete it with temporal schedule delete --schedule-id %s")
            .formatted(
                request.cluster(),
                wanted.every().toMinutes(),
                request.compactOlderThanMinutes() > 0
                    ? ", compacting the history older than "
                        + request.compactOlderThanMinutes()
                        + " minutes"
                    : ", defragmenting only",
                wanted.id(),
                wanted.id()));
  }

  private void refuseWhenOff(String id) {
    if (!config.enabled()) {
      throw new StartChecks.RunbookRefused(
          "this etcd-runbooks keeps no Temporal Schedules (runbooks.schedules.enabled: false):"
              + " "
              + id
              + " was neither made nor changed");
    }
  }

  private RunbookSchedules.Kept keep(ClusterSchedule wanted, String by) {
    RunbookSchedules.Kept kept;
    try {
      kept = schedules.keep(wanted, by);
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.UNIMPLEMENTED) throw new NoSchedules(wanted.id());
      throw e;
    }
    if (kept.applied() == RunbookSchedules.Applied.NOT_OURS) {
      throw new StartChecks.RunbookRefused(
          ("a schedule %s exists that etcd-runbooks did not make (no managedBy memo): it was left"
                  + " as it is. Delete it (temporal schedule delete --schedule-id %s) and call"
                  + " this again, or keep it and use it as it is")
              .formatted(wanted.id(), wanted.id()));
    }
    return kept;
  }

  private static Kept answer(RunbookSchedules.Kept kept, String message) {
    return new Kept(
        kept.scheduleId(),
        kept.cluster(),
        kept.workflowType(),
        kept.intervalMinutes(),
        kept.paused(),
        kept.note(),
        kept.nextActionTimes(),
        kept.applied().name().toLowerCase(java.util.Locale.ROOT),
        message);
  }

  /** The Temporal server has no schedules (Temporal's in-process test server). */
  public static final class NoSchedules extends RuntimeException {
    private static final long serialVersionUID = 1L;

    NoSchedules(String id) {
      super(
          "this Temporal server has no schedules (Temporal's in-process test server, as the"
              + " demo's --embedded runs): "
              + id
              + " was not made");
    }
  }
}
