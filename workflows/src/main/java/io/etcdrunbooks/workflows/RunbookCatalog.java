package io.etcdrunbooks.workflows;

import io.etcdrunbooks.workflows.RunbookDefinition.Starter;
import io.etcdrunbooks.workflows.RunbookDefinition.Target;
import io.etcdrunbooks.workflows.backup.BackupClusterPhases;
import io.etcdrunbooks.workflows.backup.BackupClusterRequest;
import io.etcdrunbooks.workflows.backup.BackupClusterWorkflow;
import io.etcdrunbooks.workflows.backup.BackupClusterWorkflowImpl;
import io.etcdrunbooks.workflows.backup.BackupSchedulePhases;
import io.etcdrunbooks.workflows.backup.BackupScheduleRequest;
import io.etcdrunbooks.workflows.backup.BackupScheduleWorkflow;
import io.etcdrunbooks.workflows.backup.BackupScheduleWorkflowImpl;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.downgrade.DowngradeClusterWorkflow;
import io.etcdrunbooks.workflows.downgrade.DowngradeClusterWorkflowImpl;
import io.etcdrunbooks.workflows.downgrade.DowngradePhases;
import io.etcdrunbooks.workflows.downgrade.DowngradeRequest;
import io.etcdrunbooks.workflows.drill.DrillPhases;
import io.etcdrunbooks.workflows.drill.RestoreDrillRequest;
import io.etcdrunbooks.workflows.drill.RestoreDrillWorkflow;
import io.etcdrunbooks.workflows.drill.RestoreDrillWorkflowImpl;
import io.etcdrunbooks.workflows.fleet.FleetPhases;
import io.etcdrunbooks.workflows.fleet.FleetUpgradeRequest;
import io.etcdrunbooks.workflows.fleet.FleetUpgradeWorkflow;
import io.etcdrunbooks.workflows.fleet.FleetUpgradeWorkflowImpl;
import io.etcdrunbooks.workflows.maintenance.MaintenancePhases;
import io.etcdrunbooks.workflows.maintenance.MaintenanceRequest;
import io.etcdrunbooks.workflows.maintenance.MaintenanceSchedulePhases;
import io.etcdrunbooks.workflows.maintenance.MaintenanceScheduleRequest;
import io.etcdrunbooks.workflows.maintenance.MaintenanceScheduleWorkflow;
import io.etcdrunbooks.workflows.maintenance.MaintenanceScheduleWorkflowImpl;
import io.etcdrunbooks.workflows.maintenance.MaintenanceWorkflow;
import io.etcdrunbooks.workflows.maintenance.MaintenanceWorkflowImpl;
import io.etcdrunbooks.workflows.migrate.MigratePhases;
import io.etcdrunbooks.workflows.migrate.MigrateRequest;
import io.etcdrunbooks.workflows.migrate.MigrateV2ToV3Workflow;
import io.etcdrunbooks.workflows.migrate.MigrateV2ToV3WorkflowImpl;
import io.etcdrunbooks.workflows.recover.RecoverPhases;
import io.etcdrunbooks.workflows.recover.RecoverQuorumRequest;
import io.etcdrunbooks.workflows.recover.RecoverQuorumWorkflow;
import io.etcdrunbooks.workflows.recover.RecoverQuorumWorkflowImpl;
import io.etcdrunbooks.workflows.replacemember.ReplaceMemberRequest;
import io.etcdrunbooks.workflows.replacemember.ReplaceMemberWorkflow;
import io.etcdrunbooks.workflows.replacemember.ReplaceMemberWorkflowImpl;
import io.etcdrunbooks.workflows.replacemember.ReplacePhases;
import io.etcdrunbooks.workflows.restore.RestoreClusterWorkflow;
import io.etcdrunbooks.workflows.restore.RestoreClusterWorkflowImpl;
import io.etcdrunbooks.workflows.restore.RestorePhases;
import io.etcdrunbooks.workflows.restore.RestoreRequest;
import io.etcdrunbooks.workflows.rollback.RollbackClusterWorkflow;
import io.etcdrunbooks.workflows.rollback.RollbackClusterWorkflowImpl;
import io.etcdrunbooks.workflows.rollback.RollbackPhases;
import io.etcdrunbooks.workflows.rollback.RollbackRequest;
import io.etcdrunbooks.workflows.scale.ScaleClusterRequest;
import io.etcdrunbooks.workflows.scale.ScaleClusterWorkflow;
import io.etcdrunbooks.workflows.scale.ScaleClusterWorkflowImpl;
import io.etcdrunbooks.workflows.scale.ScalePhases;
import io.etcdrunbooks.workflows.tls.ReconfigureTlsRequest;
import io.etcdrunbooks.workflows.tls.ReconfigureTlsWorkflow;
import io.etcdrunbooks.workflows.tls.ReconfigureTlsWorkflowImpl;
import io.etcdrunbooks.workflows.tls.TlsPhases;
import io.etcdrunbooks.workflows.upgrade.UpgradeClusterWorkflow;
import io.etcdrunbooks.workflows.upgrade.UpgradeClusterWorkflowImpl;
import io.etcdrunbooks.workflows.upgrade.UpgradePhases;
import io.etcdrunbooks.workflows.upgrade.UpgradeRequest;
import java.util.List;
import java.util.Optional;

/**
 * Every runbook, one {@link RunbookDefinition} each: what the worker registers, the API and Slack
 * start, and docs/runbooks/phases.md lists (its tests hold each of them to this list).
 */
public final class RunbookCatalog {

  private RunbookCatalog() {}

  public static final RunbookDefinition<UpgradeRequest> UPGRADE =
      RunbookDefinition.changing(
              UpgradeClusterWorkflow.TYPE,
              UpgradeClusterWorkflow.class,
              UpgradeClusterWorkflowImpl.class,
              UpgradeRequest.class,
              UpgradePhases.RUNNER,
              UpgradeClusterWorkflow.FAILURES,
              "upgrade",
              UpgradeClusterWorkflow::workflowId)
          .inSlack("upgrade");

  public static final RunbookDefinition<FleetUpgradeRequest> FLEET_UPGRADE =
      RunbookDefinition.apart(
              FleetUpgradeWorkflow.TYPE,
              FleetUpgradeWorkflow.class,
              FleetUpgradeWorkflowImpl.class,
              FleetUpgradeRequest.class,
              FleetPhases.RUNNER,
              FleetUpgradeWorkflow.FAILURES,
              "upgrade",
              FleetUpgradeWorkflow::workflowId)
          .on(Target.FLEET)
          .startedBy(Starter.ADMIN)
          .inSlack("fleet")
          .fromCaller((request, by) -> atLeastOneAtATime(request));

  public static final RunbookDefinition<RollbackRequest> ROLLBACK =
      RunbookDefinition.changing(
              RollbackClusterWorkflow.TYPE,
              RollbackClusterWorkflow.class,
              RollbackClusterWorkflowImpl.class,
              RollbackRequest.class,
              RollbackPhases.RUNNER,
              RollbackClusterWorkflow.FAILURES,
              "rollback",
              RollbackClusterWorkflow::workflowId)
          .startedBy(Starter.ADMIN);

  public static final RunbookDefinition<DowngradeRequest> DOWNGRADE =
      RunbookDefinition.changing(
              DowngradeClusterWorkflow.TYPE,
              DowngradeClusterWorkflow.class,
              DowngradeClusterWorkflowImpl.class,
              DowngradeRequest.class,
              DowngradePhases.RUNNER,
              DowngradeClusterWorkflow.FAILURES,
              "downgrade",
              DowngradeClusterWorkflow::workflowId)
          .startedBy(Starter.ADMIN);

  public static final RunbookDefinition<RestoreRequest> RESTORE =
      RunbookDefinition.changing(
              RestoreClusterWorkflow.TYPE,
              RestoreClusterWorkflow.class,
              RestoreClusterWorkflowImpl.class,
              RestoreRequest.class,
              RestorePhases.RUNNER,
              RestoreClusterWorkflow.FAILURES,
              "restore",
              RestoreClusterWorkflow::workflowId)
          .startedBy(Starter.ADMIN);

  public static final RunbookDefinition<ReplaceMemberRequest> REPLACE_MEMBER =
      RunbookDefinition.changing(
              ReplaceMemberWorkflow.TYPE,
              ReplaceMemberWorkflow.class,
              ReplaceMemberWorkflowImpl.class,
              ReplaceMemberRequest.class,
              ReplacePhases.RUNNER,
              ReplaceMemberWorkflow.FAILURES,
              "replace-member",
              ReplaceMemberWorkflow::workflowId)
          .inSlack("replace")
          // the trigger names the caller; waiting for the member to stay down is an alert's
          .fromCaller(
              (request, by) ->
                  ReplaceMemberRequest.of(
                          request.cluster(),
                          request.failedMember(),
                          request.replacement(),
                          request.options(),
                          "api: " + by)
                      .withForce(request.force()));

  public static final RunbookDefinition<ScaleClusterRequest> SCALE =
      RunbookDefinition.changing(
              ScaleClusterWorkflow.TYPE,
              ScaleClusterWorkflow.class,
              ScaleClusterWorkflowImpl.class,
              ScaleClusterRequest.class,
              ScalePhases.RUNNER,
              ScaleClusterWorkflow.FAILURES,
              "scale",
              ScaleClusterWorkflow::workflowId)
          .startedBy(Starter.ADMIN)
          .inSlack("scale");

  public static final RunbookDefinition<RecoverQuorumRequest> RECOVER_QUORUM =
      RunbookDefinition.changing(
              RecoverQuorumWorkflow.TYPE,
              RecoverQuorumWorkflow.class,
              RecoverQuorumWorkflowImpl.class,
              RecoverQuorumRequest.class,
              RecoverPhases.RUNNER,
              RecoverQuorumWorkflow.FAILURES,
              "recover-quorum",
              RecoverQuorumWorkflow::workflowId)
          .startedBy(Starter.ADMIN)
          .inSlack("recover-quorum");

  public static final RunbookDefinition<MigrateRequest> MIGRATE_V2_TO_V3 =
      RunbookDefinition.changing(
              MigrateV2ToV3Workflow.TYPE,
              MigrateV2ToV3Workflow.class,
              MigrateV2ToV3WorkflowImpl.class,
              MigrateRequest.class,
              MigratePhases.RUNNER,
              MigrateV2ToV3Workflow.FAILURES,
              "migrate-v2-to-v3",
              MigrateV2ToV3Workflow::workflowId)
          .startedBy(Starter.ADMIN);

  public static final RunbookDefinition<ReconfigureTlsRequest> RECONFIGURE_TLS =
      RunbookDefinition.changing(
              ReconfigureTlsWorkflow.TYPE,
              ReconfigureTlsWorkflow.class,
              ReconfigureTlsWorkflowImpl.class,
              ReconfigureTlsRequest.class,
              TlsPhases.RUNNER,
              ReconfigureTlsWorkflow.FAILURES,
              "reconfigure-tls",
              ReconfigureTlsWorkflow::workflowId)
          .startedBy(Starter.ADMIN);

  public static final RunbookDefinition<MaintenanceRequest> MAINTENANCE =
      RunbookDefinition.changing(
              MaintenanceWorkflow.TYPE,
              MaintenanceWorkflow.class,
              MaintenanceWorkflowImpl.class,
              MaintenanceRequest.class,
              MaintenancePhases.RUNNER,
              MaintenanceWorkflow.FAILURES,
              "maintenance",
              MaintenanceWorkflow::workflowId)
          .inSlack("maintenance");

  public static final RunbookDefinition<MaintenanceScheduleRequest> MAINTENANCE_SCHEDULE =
      RunbookDefinition.apart(
              MaintenanceScheduleWorkflow.TYPE,
              MaintenanceScheduleWorkflow.class,
              MaintenanceScheduleWorkflowImpl.class,
              MaintenanceScheduleRequest.class,
              MaintenanceSchedulePhases.RUNNER,
              MaintenanceScheduleWorkflow.FAILURES,
              "maintenance-schedule",
              MaintenanceScheduleWorkflow::workflowId)
          .fromCaller((request, by) -> firstRound(request));

  public static final RunbookDefinition<BackupClusterRequest> BACKUP =
      RunbookDefinition.apart(
              BackupClusterWorkflow.TYPE,
              BackupClusterWorkflow.class,
              BackupClusterWorkflowImpl.class,
              BackupClusterRequest.class,
              BackupClusterPhases.RUNNER,
              BackupClusterWorkflow.FAILURES,
              "backup",
              BackupClusterWorkflow::workflowId)
          .fromCaller(
              (request, by) ->
                  request.reason() != null
                      ? request
                      : BackupClusterRequest.of(
                          request.cluster(),
                          "api: " + by,
                          RunbookOptions.defaults().withApproval(request.requireApproval())));

  public static final RunbookDefinition<BackupScheduleRequest> BACKUP_SCHEDULE =
      RunbookDefinition.apart(
              BackupScheduleWorkflow.TYPE,
              BackupScheduleWorkflow.class,
              BackupScheduleWorkflowImpl.class,
              BackupScheduleRequest.class,
              BackupSchedulePhases.RUNNER,
              BackupScheduleWorkflow.FAILURES,
              "backup-schedule",
              BackupScheduleWorkflow::workflowId)
          .fromCaller(
              (request, by) ->
                  new BackupScheduleRequest(request.cluster(), request.intervalMinutes(), 0, 0));

  /** Read-only towards the cluster: under an id of its own, beside any change. */
  public static final RunbookDefinition<RestoreDrillRequest> RESTORE_DRILL =
      RunbookDefinition.apart(
          RestoreDrillWorkflow.TYPE,
          RestoreDrillWorkflow.class,
          RestoreDrillWorkflowImpl.class,
          RestoreDrillRequest.class,
          DrillPhases.RUNNER,
          RestoreDrillWorkflow.FAILURES,
          "restore-drill",
          RestoreDrillWorkflow::workflowId);

  private static final List<RunbookDefinition<?>> ALL =
      List.of(
          UPGRADE,
          FLEET_UPGRADE,
          ROLLBACK,
          DOWNGRADE,
          RESTORE,
          REPLACE_MEMBER,
          SCALE,
          RECOVER_QUORUM,
          MIGRATE_V2_TO_V3,
          RECONFIGURE_TLS,
          MAINTENANCE,
          MAINTENANCE_SCHEDULE,
          BACKUP,
          BACKUP_SCHEDULE,
          RESTORE_DRILL);

  /** Every runbook, in the order docs/runbooks/phases.md shows them. */
  public static List<RunbookDefinition<?>> all() {
    return ALL;
  }

  public static Optional<RunbookDefinition<?>> byType(String type) {
    return ALL.stream().filter(d -> d.type().equals(type)).findFirst();
  }

  public static Optional<RunbookDefinition<?>> bySlackVerb(String verb) {
    return ALL.stream().filter(d -> d.slackVerb().filter(verb::equals).isPresent()).findFirst();
  }

  /** A fleet upgrade asked with concurrency or failure budget 0 goes one cluster at a time. */
  private static FleetUpgradeRequest atLeastOneAtATime(FleetUpgradeRequest r) {
    return new FleetUpgradeRequest(
        r.fleet(),
        r.selector(),
        r.targetVersion(),
        r.canaries(),
        r.waveLabel(),
        r.waveOrder(),
        r.concurrency() == 0 ? 1 : r.concurrency(),
        r.failureBudget() == 0 ? 1 : r.failureBudget(),
        r.approveBetweenWaves(),
        r.memberTimeoutSeconds(),
        r.bakeMinutes(),
        r.skipKubernetesGate());
  }

  /** A schedule a caller starts begins with its first round; the rounds' state is its own. */
  private static MaintenanceScheduleRequest firstRound(MaintenanceScheduleRequest r) {
    MaintenanceScheduleRequest every =
        MaintenanceScheduleRequest.every(
            r.cluster(), r.intervalMinutes(), r.compactOlderThanMinutes());
    if (r.defragmentAll()) every = every.defragmentingAll();
    if (r.forceCompaction()) every = every.forcingCompaction();
    return every;
  }
}
