package io.etcdrunbooks.runtime.schedules;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.inventory.BackupSpec;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.workflows.backup.BackupScheduleRequest;
import io.etcdrunbooks.workflows.maintenance.MaintenanceScheduleRequest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The schedules a cluster's backup settings ask for, with their defaults and the ways out. */
class ClusterScheduleTest {

  @Test
  void aClusterWithoutSettingsGetsAnHourlyBackupRoundAndAWeeklyDrill() {
    List<ClusterSchedule> schedules = ClusterSchedule.of(cluster(null));

    assertThat(schedules)
        .extracting(ClusterSchedule::id, ClusterSchedule::workflowType, ClusterSchedule::every)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                "etcd-runbooks-backup-prod-1", "BackupSchedule", Duration.ofHours(1)),
            org.assertj.core.groups.Tuple.tuple(
                "etcd-runbooks-drill-prod-1", "RestoreDrill", Duration.ofDays(7)));
    // one backup, its interval given so that the round reads none
    assertThat(schedules.get(0).request()).isEqualTo(new BackupScheduleRequest("prod-1", 60, 0, 1));
    assertThat(schedules.get(1).request()).isEqualTo(Map.of("cluster", "prod-1"));
    assertThat(schedules)
        .extracting(ClusterSchedule::workflowId)
        .containsExactly("scheduled-backup-prod-1", "drill-prod-1");
  }

  @Test
  void aMaintenanceScheduleStartsOneRoundOfWhatTheCallerAsked() {
    ClusterSchedule maintenance =
        ClusterSchedule.maintenance(
            MaintenanceScheduleRequest.every("prod-1", 0, 10080).defragmentingAll());

    assertThat(maintenance.id()).isEqualTo("etcd-runbooks-maintenance-prod-1");
    assertThat(maintenance.workflowType()).isEqualTo("MaintenanceSchedule");
    assertThat(maintenance.every()).isEqualTo(Duration.ofDays(1));
    assertThat(maintenance.workflowId()).isEqualTo("scheduled-maintenance-prod-1");
    assertThat(maintenance.request())
        .isEqualTo(
            MaintenanceScheduleRequest.every("prod-1", 0, 10080)
                .defragmentingAll()
                .stoppingAfter(1));
    assertThat(maintenance.fromInventory()).isFalse();
  }

  @Test
  void intervalsComeFromTheInventoryAndEitherScheduleCanBeTurnedOff() {
    BackupSpec every6h =
        new BackupSpec(null, "/k", "k", null, null, 360, null, null, null, 1440, null);
    assertThat(ClusterSchedule.of(cluster(every6h)))
        .extracting(ClusterSchedule::every)
        .containsExactly(Duration.ofHours(6), Duration.ofDays(1));

    BackupSpec noDrill =
        new BackupSpec(null, "/k", "k", null, null, null, null, null, null, 0, null);
    assertThat(ClusterSchedule.of(cluster(noDrill)))
        .extracting(ClusterSchedule::id)
        .containsExactly("etcd-runbooks-backup-prod-1");

    BackupSpec off =
        new BackupSpec(null, "/k", "k", null, null, null, null, null, false, null, null);
    assertThat(ClusterSchedule.of(cluster(off))).isEmpty();
  }

  private static ClusterSpec cluster(BackupSpec backup) {
    return new ClusterSpec(
        "prod-1", List.of(), null, null, null, "/var/backups", List.of(), backup);
  }
}
