package io.etcdrunbooks.workflows;

import io.etcdrunbooks.workflows.backup.BackupClusterPhases;
import io.etcdrunbooks.workflows.backup.BackupClusterWorkflow;
import io.etcdrunbooks.workflows.backup.BackupSchedulePhases;
import io.etcdrunbooks.workflows.backup.BackupScheduleWorkflow;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.fleet.FleetPhases;
import io.etcdrunbooks.workflows.fleet.FleetUpgradeWorkflow;
import io.etcdrunbooks.workflows.maintenance.MaintenancePhases;
import io.etcdrunbooks.workflows.maintenance.MaintenanceSchedulePhases;
import io.etcdrunbooks.workflows.maintenance.MaintenanceScheduleWorkflow;
import io.etcdrunbooks.workflows.maintenance.MaintenanceWorkflow;
import io.etcdrunbooks.workflows.migrate.MigratePhases;
import io.etcdrunbooks.workflows.migrate.MigrateV2ToV3Workflow;
import io.etcdrunbooks.workflows.phases.PhaseRunner;
import io.etcdrunbooks.workflows.recover.RecoverPhases;
import io.etcdrunbooks.workflows.recover.RecoverQuorumWorkflow;
import io.etcdrunbooks.workflows.replacemember.ReplaceMemberWorkflow;
import io.etcdrunbooks.workflows.replacemember.ReplacePhases;
import io.etcdrunbooks.workflows.restore.RestoreClusterWorkflow;
import io.etcdrunbooks.workflows.restore.RestorePhases;
import io.etcdrunbooks.workflows.rollback.RollbackClusterWorkflow;
import io.etcdrunbooks.workflows.rollback.RollbackPhases;
import io.etcdrunbooks.workflows.scale.ScaleClusterWorkflow;
import io.etcdrunbooks.workflows.scale.ScalePhases;
import io.etcdrunbooks.workflows.tls.ReconfigureTlsWorkflow;
import io.etcdrunbooks.workflows.tls.TlsPhases;
import io.etcdrunbooks.workflows.upgrade.UpgradeClusterWorkflow;
import io.etcdrunbooks.workflows.upgrade.UpgradePhases;
import java.util.List;

/**
 * Every runbook built from phases, with its phases and the failure types it ends with: what
 * docs/runbooks/phases.md lists, and what its test holds the doc to.
 */
public final class RunbookCatalog {

  private RunbookCatalog() {}

  public static List<Entry> all() {
    return List.of(
        new Entry(
            UpgradeClusterWorkflow.TYPE,
            UpgradePhases.RUNNER.described(),
            UpgradeClusterWorkflow.FAILURES),
        new Entry(
            FleetUpgradeWorkflow.TYPE,
            FleetPhases.RUNNER.described(),
            FleetUpgradeWorkflow.FAILURES),
        new Entry(
            RollbackClusterWorkflow.TYPE,
            RollbackPhases.RUNNER.described(),
            RollbackClusterWorkflow.FAILURES),
        new Entry(
            RestoreClusterWorkflow.TYPE,
            RestorePhases.RUNNER.described(),
            RestoreClusterWorkflow.FAILURES),
        new Entry(
            ReplaceMemberWorkflow.TYPE,
            ReplacePhases.RUNNER.described(),
            ReplaceMemberWorkflow.FAILURES),
        new Entry(
            ScaleClusterWorkflow.TYPE,
            ScalePhases.RUNNER.described(),
            ScaleClusterWorkflow.FAILURES),
        new Entry(
            RecoverQuorumWorkflow.TYPE,
            RecoverPhases.RUNNER.described(),
            RecoverQuorumWorkflow.FAILURES),
        new Entry(
            MigrateV2ToV3Workflow.TYPE,
            MigratePhases.RUNNER.described(),
            MigrateV2ToV3Workflow.FAILURES),
        new Entry(
            ReconfigureTlsWorkflow.TYPE,
            TlsPhases.RUNNER.described(),
            ReconfigureTlsWorkflow.FAILURES),
        new Entry(
            MaintenanceWorkflow.TYPE,
            MaintenancePhases.RUNNER.described(),
            MaintenanceWorkflow.FAILURES),
        new Entry(
            MaintenanceScheduleWorkflow.TYPE,
            MaintenanceSchedulePhases.RUNNER.described(),
            MaintenanceScheduleWorkflow.FAILURES),
        new Entry(
            BackupClusterWorkflow.TYPE,
            BackupClusterPhases.RUNNER.described(),
            BackupClusterWorkflow.FAILURES),
        new Entry(
            BackupScheduleWorkflow.TYPE,
            BackupSchedulePhases.RUNNER.described(),
            BackupScheduleWorkflow.FAILURES));
  }

  public record Entry(
      String runbook, List<PhaseRunner.Described> phases, List<FailureType> failures) {}
}
