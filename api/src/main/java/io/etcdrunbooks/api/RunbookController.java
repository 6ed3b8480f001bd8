package io.etcdrunbooks.api;

import io.etcdrunbooks.api.auth.Access;
import io.etcdrunbooks.api.auth.ApiAction;
import io.etcdrunbooks.api.auth.ApiAuthFilter;
import io.etcdrunbooks.api.auth.Caller;
import io.etcdrunbooks.api.auth.Role;
import io.etcdrunbooks.inventory.InventorySource;
import io.etcdrunbooks.inventory.UnknownClusterException;
import io.etcdrunbooks.workflows.RunbookCatalog;
import io.etcdrunbooks.workflows.RunbookDefinition;
import io.etcdrunbooks.workflows.backup.BackupClusterRequest;
import io.etcdrunbooks.workflows.backup.BackupScheduleRequest;
import io.etcdrunbooks.workflows.common.ControlOutcome;
import io.etcdrunbooks.workflows.downgrade.DowngradeRequest;
import io.etcdrunbooks.workflows.drill.RestoreDrillRequest;
import io.etcdrunbooks.workflows.fleet.FleetStatus;
import io.etcdrunbooks.workflows.fleet.FleetUpgradeRequest;
import io.etcdrunbooks.workflows.fleet.FleetUpgradeWorkflow;
import io.etcdrunbooks.workflows.maintenance.MaintenanceRequest;
import io.etcdrunbooks.workflows.maintenance.MaintenanceScheduleRequest;
import io.etcdrunbooks.workflows.migrate.MigrateRequest;
import io.etcdrunbooks.workflows.recover.RecoverQuorumRequest;
import io.etcdrunbooks.workflows.replacemember.ReplaceMemberRequest;
import io.etcdrunbooks.workflows.restore.RestoreRequest;
import io.etcdrunbooks.workflows.rollback.RollbackRequest;
import io.etcdrunbooks.workflows.scale.ScaleClusterRequest;
import io.etcdrunbooks.workflows.tls.ReconfigureTlsRequest;
import io.etcdrunbooks.workflows.upgrade.UpgradeRequest;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Error;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowStub;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Starts, follows and signals runbooks. */
@Controller("/api/v1")
@ExecuteOn(TaskExecutors.BLOCKING)
public final class RunbookController {

  private final RunbookStarter starter;
  private final WorkflowClient client;
  private final RunbookList list;
  private final InventorySource inventory;
  private final RunbookReader reader;
  private final ApprovalRules approvals;
  private final RunbookControls controls;
  private final ClusterSchedules schedules;

  public RunbookController(
      RunbookStarter starter,
      WorkflowClient client,
      RunbookList list,
      InventorySource inventory,
      RunbookReader reader,
      ApprovalRules approvals,
      RunbookControls controls,
      ClusterSchedules schedules) {
    this.starter = starter;
    this.client = client;
    this.list = list;
    this.inventory = inventory;
    this.reader = reader;
    this.approvals = approvals;
    this.controls = controls;
    this.schedules = schedules;
  }

  /*
   * Start endpoints take the runbook's own input (its request record in RunbookCatalog), the JSON the Temporal Web UI
   * would start it with; "cluster" may be left out (the path names it) and must match the path when given. Each goes
   * through the one generic start and answers 202 with the workflow id, or 409 naming the runbook that already changes
   * the cluster.
   */

  /**
   * Body:
   * {"targetVersion":"3.5.30","dryRun":false,"requireApproval":false,"memberTimeoutSeconds":0}.
   */
  @Post("/clusters/{cluster}/upgrade")
  @Access(ApiAction.UPGRADE)
  public HttpResponse<RunbookStarter.Started> upgrade(
      @PathVariable String cluster, @Body UpgradeRequest body, HttpRequest<?> http) {
    return start(RunbookCatalog.UPGRADE, cluster, body, http);
  }

  /**
   * Body:
   * {"toVersion":"3.4.23","acknowledgeDataLoss":false,"backupId":"","requireApproval":false,"dryRun":false,
   * "acknowledgeRevisionsBackward":false}.
   */
  @Post("/clusters/{cluster}/rollback")
  @Access(ApiAction.ROLLBACK)
  public HttpResponse<RunbookStarter.Started> rollback(
      @PathVariable String cluster, @Body RollbackRequest body, HttpRequest<?> http) {
    return start(RunbookCatalog.ROLLBACK, cluster, body, http);
  }

  /** Body: {"toVersion":"3.5.35","requireApproval":false,"dryRun":false}. */
  @Post("/clusters/{cluster}/downgrade")
  @Access(ApiAction.DOWNGRADE)
  public HttpResponse<RunbookStarter.Started> downgrade(
      @PathVariable String cluster, @Body DowngradeRequest body, HttpRequest<?> http) {
    return start(RunbookCatalog.DOWNGRADE, cluster, body, http);
  }

  /**
   * Body:
   * {"backupId":"latest","acknowledgeDataLoss":true,"etcdVersion":"","requireApproval":false,"dryRun":false,
   * "acknowledgeRevisionsBackward":false}.
   */
  @Post("/clusters/{cluster}/restore")
  @Access(ApiAction.RESTORE)
  public HttpResponse<RunbookStarter.Started> restore(
      @PathVariable String cluster, @Body RestoreRequest body, HttpRequest<?> http) {
    return start(RunbookCatalog.RESTORE, cluster, body, http);
  }

  /**
   * Body: {"compactKeepRevisions":10000,"compactRevision":0,"defragmentAll":false,
   * "forceCompaction":false,"requireApproval":false,"dryRun":false}.
   */
  @Post("/clusters/{cluster}/maintenance")
  @Access(ApiAction.MAINTENANCE)
  public HttpResponse<RunbookStarter.Started> maintenance(
      @PathVariable String cluster, @Body MaintenanceRequest body, HttpRequest<?> http) {
    return start(RunbookCatalog.MAINTENANCE, cluster, body, http);
  }

  /**
   * Body:
   * {"targetSize":5,"newMembers":[{"name":"m4","host":"10.0.0.4","peerUrl":...,"clientUrl":...},
   * ...]} to grow, {"targetSize":3} (or with "removeMembers") to shrink.
   */
  @Post("/clusters/{cluster}/scale")
  @Access(ApiAction.SCALE)
  public HttpResponse<RunbookStarter.Started> scale(
      @PathVariable String cluster, @Body ScaleClusterRequest body, HttpRequest<?> http) {
    return start(RunbookCatalog.SCALE, cluster, body, http);
  }

  /**
   * Body: {"acknowledgeDataLoss":true,"confirmLossSeconds":60,"survivor":"","replacements":{"m2":
   * {"name":"m4","host":...}},"acknowledgeRevisionsBackward":false}. It always waits for an admin's
   * approval before it touches anything.
   */
  @Post("/clusters/{cluster}/recover-quorum")
  @Access(ApiAction.RECOVER_QUORUM)
  public HttpResponse<RunbookStarter.Started> recoverQuorum(
      @PathVariable String cluster, @Body RecoverQuorumRequest body, HttpRequest<?> http) {
    return start(RunbookCatalog.RECOVER_QUORUM, cluster, body, http);
  }

  /**
   * Body: {"requireApproval":false,"dryRun":false,"memberTimeoutSeconds":0,
   * "apiServerTimeoutSeconds":0} (may be {}).
   */
  @Post("/clusters/{cluster}/migrate-v2-to-v3")
  @Access(ApiAction.MIGRATE_V2_TO_V3)
  public HttpResponse<RunbookStarter.Started> migrateV2ToV3(
      @PathVariable String cluster, @Body MigrateRequest body, HttpRequest<?> http) {
    return start(RunbookCatalog.MIGRATE_V2_TO_V3, cluster, body, http);
  }

  /**
   * Body: {"mode":"rotate-certificates","certificatesDir":"/etc/etcd-runbooks/new-certs/prod-1",
   * "requireApproval":false,"dryRun":false,"memberTimeoutSeconds":0}, or with
   * {"caKeyFile":"/etc/etcd-runbooks/prod-1-ca.key","validityDays":365} instead of certificatesDir;
   * mode "enable" takes {"enable":{"urls":"both","caFile":...,"clientCertFile":...,
   * "clientKeyFile":...}} too, mode "rotate-ca" {"rotateCa":{"caFile":...,"clientCertFile":...,
   * "clientKeyFile":...}}; both take {"ignoreUnmanagedClients":true} to cut plain http or the old
   * CA off without holding for the clients the inventory does not know of.
   */
  @Post("/clusters/{cluster}/reconfigure-tls")
  @Access(ApiAction.RECONFIGURE_TLS)
  public HttpResponse<RunbookStarter.Started> reconfigureTls(
      @PathVariable String cluster, @Body ReconfigureTlsRequest body, HttpRequest<?> http) {
    return start(RunbookCatalog.RECONFIGURE_TLS, cluster, body, http);
  }

  /**
   * Body:
   * {"failedMember":"m2","replacement":{"name":"m4","host":"10.0.0.4",...},"force":false,"requireApproval":false,
   * "dryRun":false}; without replacement, the new member runs on the failed member's host.
   */
  @Post("/clusters/{cluster}/replace-member")
  @Access(ApiAction.REPLACE_MEMBER)
  public HttpResponse<RunbookStarter.Started> replaceMember(
      @PathVariable String cluster, @Body ReplaceMemberRequest body, HttpRequest<?> http) {
    return start(RunbookCatalog.REPLACE_MEMBER, cluster, body, http);
  }

  /** Body: {"reason":"before the node drain","requireApproval":false} (may be {}). */
  @Post("/clusters/{cluster}/backup")
  @Access(ApiAction.BACKUP)
  public HttpResponse<RunbookStarter.Started> backup(
      @PathVariable String cluster, @Body BackupClusterRequest body, HttpRequest<?> http) {
    return start(RunbookCatalog.BACKUP, cluster, body, http);
  }

  /**
   * Body: {"intervalMinutes":0} (0: the inventory's backup.intervalMinutes). Makes the cluster's
   * one backup schedule, the Temporal Schedule etcd-runbooks-backup-{cluster}, as the inventory
   * says, now (a worker start does the same): 201 made, 200 updated or as it was; 409 for another
   * interval than the inventory's, or a cluster with backup.schedule: false. No loop is started.
   */
  @Post("/clusters/{cluster}/backup-schedule")
  @Access(ApiAction.BACKUP_SCHEDULE)
  public HttpResponse<ClusterSchedules.Kept> backupSchedule(
      @PathVariable String cluster, @Body BackupScheduleRequest body, HttpRequest<?> http) {
    return kept(
        schedules.backup(
            onTarget(RunbookCatalog.BACKUP_SCHEDULE, cluster, body, http), caller(http)));
  }

  /**
   * Body: {} (the newest backup) or {"backupId":"backup-..."}; restores it on the worker into a
   * throwaway etcd, never on the cluster.
   */
  @Post("/clusters/{cluster}/restore-drill")
  @Access(ApiAction.RESTORE_DRILL)
  public HttpResponse<RunbookStarter.Started> restoreDrill(
      @PathVariable String cluster, @Body RestoreDrillRequest body, HttpRequest<?> http) {
    return start(RunbookCatalog.RESTORE_DRILL, cluster, body, http);
  }

  /**
   * Body: {"intervalMinutes":1440,"compactOlderThanMinutes":10080,"defragmentAll":false,
   * "forceCompaction":false}. Makes the cluster's one maintenance schedule, the Temporal Schedule
   * etcd-runbooks-maintenance-{cluster}, as asked, now: 201 made, 200 updated or as it was (its
   * paused state kept). It runs until paused or deleted in Temporal.
   */
  @Post("/clusters/{cluster}/maintenance-schedule")
  @Access(ApiAction.MAINTENANCE_SCHEDULE)
  public HttpResponse<ClusterSchedules.Kept> maintenanceSchedule(
      @PathVariable String cluster, @Body MaintenanceScheduleRequest body, HttpRequest<?> http) {
    return kept(
        schedules.maintenance(
            onTarget(RunbookCatalog.MAINTENANCE_SCHEDULE, cluster, body, http), caller(http)));
  }

  /**
   * Body: the FleetUpgrade input without "fleet" (the path names it):
   * {"selector":"env=prod","targetVersion":"3.5.30","canaries":1,"waveLabel":"size",
   * "waveOrder":["small","medium","large"],"concurrency":2,"failureBudget":1,
   * "approveBetweenWaves":true,"memberTimeoutSeconds":0,"bakeMinutes":15,"skipKubernetesGate":false}.
   * A fleet reaches many clusters: only tokens allowed on every cluster may start or read one.
   */
  @Post("/fleets/{fleet}/upgrade")
  @Access(ApiAction.FLEET_UPGRADE)
  public HttpResponse<RunbookStarter.Started> fleetUpgrade(
      @PathVariable String fleet, @Body FleetUpgradeRequest body, HttpRequest<?> http) {
    return start(RunbookCatalog.FLEET_UPGRADE, fleet, body, http);
  }

  /**
   * The fleet upgrade's every cluster, its waves and the wave running now; 503 when no worker
   * answers in time (the fleet goes on once one polls).
   */
  @Get("/fleets/{fleet}")
  @Access(ApiAction.READ_FLEET)
  public HttpResponse<?> fleet(@PathVariable String fleet) {
    String id = FleetUpgradeWorkflow.workflowId(fleet);
    Optional<FleetStatus> status;
    try {
      status = reader.query(id, "fleetStatus", FleetStatus.class);
    } catch (io.grpc.StatusRuntimeException e) {
      if (e.getStatus().getCode() == io.grpc.Status.Code.NOT_FOUND)
        return HttpResponse.notFound(new ApiError("no fleet upgrade " + fleet, id));
      throw e;
    }
    return status
        .<HttpResponse<?>>map(HttpResponse::ok)
        .orElseGet(
            () ->
                HttpResponse.status(HttpStatus.SERVICE_UNAVAILABLE)
                    .body(
                        new ApiError(
                            "no worker answered for fleet upgrade "
                                + fleet
                                + " in time, or it has not selected its clusters yet; try again",
                            id)));
  }

  /** The cluster's running runbooks, then those of the last 7 days, from Temporal. */
  @Get("/clusters/{cluster}/runbooks")
  @Access(ApiAction.LIST_RUNBOOKS)
  public List<RunbookList.RunbookSummary> runbooks(@PathVariable String cluster) {
    inventory.get().cluster(cluster);
    return list.forCluster(cluster);
  }

  /**
   * Status, progress and, once finished, the result or the failure of a runbook; within a few
   * seconds also when no worker runs (then without the live progress, and saying so).
   */
  @Get("/runbooks/{workflowId}")
  @Access(ApiAction.READ_RUNBOOK)
  public RunbookReader.RunbookView runbook(@PathVariable String workflowId) {
    return reader.read(workflowId);
  }

  /**
   * Holds the runbook before its next member ({@code pauseRun} update); 409 with the runbook's
   * reason when it refuses (paused already).
   */
  @Post("/runbooks/{workflowId}/pause")
  @Access(ApiAction.PAUSE)
  public HttpResponse<Map<String, String>> pause(
      @PathVariable String workflowId, HttpRequest<?> http) {
    return accepted(workflowId, controls.pause(stub(workflowId), caller(http)));
  }

  /** Lets a paused runbook go on ({@code resumeRun}); 409 with the reason when it is not paused. */
  @Post("/runbooks/{workflowId}/resume")
  @Access(ApiAction.RESUME)
  public HttpResponse<Map<String, String>> resume(
      @PathVariable String workflowId, HttpRequest<?> http) {
    return accepted(workflowId, controls.resume(stub(workflowId), caller(http)));
  }

  /**
   * Lets a runbook started with requireApproval go on to its first change ({@code approveRun}); a
   * RecoverQuorum only when an admin approves it ({@link ApprovalRules}: 403), with the approval
   * signed so that the runbook can check the role itself. The body may name the plan approved
   * ({@code {"planId":"..."}}, the runbook's {@code progress.approvalPlan}); without it, the plan
   * the runbook shows now. 409 with the runbook's reason when it refuses: not waiting for approval,
   * approved already, a dry run, another plan.
   */
  @Post("/runbooks/{workflowId}/approve")
  @Access(ApiAction.APPROVE)
  public HttpResponse<?> approve(
      @PathVariable String workflowId, @Nullable @Body ControlBody body, HttpRequest<?> http) {
    Caller caller = http.getAttribute(ApiAuthFilter.CALLER, Caller.class).orElse(null);
    Optional<String> refused = approvals.whyNot(workflowId, caller);
    if (refused.isPresent())
      return HttpResponse.status(HttpStatus.FORBIDDEN)
          .body(new ApiError(refused.get(), workflowId));
    String planId = body == null ? null : body.planId();
    return accepted(
        workflowId,
        controls.approve(
            stub(workflowId),
            caller == null ? new Caller("unknown", Role.OPERATOR, List.of()) : caller,
            planId));
  }

  /**
   * Asks a runbook to stop. A runbook that changes the cluster stops at its next safe point (before
   * the next member, before its first change), never in the middle of a step; a backup schedule
   * stops at once. Temporal's cancel request, as before (not the {@code cancelRun} update: a run it
   * stops ends failed, not cancelled, in Temporal's terms); the body may say why ({@code
   * {"reason":"..."}}), kept with who asked.
   */
  @Post("/runbooks/{workflowId}/cancel")
  @Access(ApiAction.CANCEL)
  public HttpResponse<Map<String, String>> cancel(
      @PathVariable String workflowId, @Nullable @Body ControlBody body, HttpRequest<?> http) {
    WorkflowStub stub = stub(workflowId);
    if (stub.describe().getStatus() != WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) {
      return HttpResponse.<Map<String, String>>status(HttpStatus.CONFLICT)
          .body(
              Map.of(
                  "workflowId",
                  workflowId,
                  "error",
                  "runbook " + workflowId + " is not running: nothing to cancel"));
    }
    String reason =
        body == null || body.reason() == null || body.reason().isBlank()
            ? ""
            : ": " + body.reason();
    stub.cancel("cancelled through the API by " + caller(http) + reason);
    return HttpResponse.accepted()
        .body(
            Map.of(
                "workflowId",
                workflowId,
                "control",
                "cancel",
                "by",
                caller(http),
                "note",
                "the runbook stops at its next safe point; follow it with GET /api/v1/runbooks/"
                    + workflowId));
  }

  /**
   * The optional body of approve ({@code planId}) and cancel ({@code reason}).
   *
   * @param planId the plan approved, as the runbook's progress shows it
   * @param reason why the runbook is cancelled
   */
  public record ControlBody(@Nullable String planId, @Nullable String reason) {}

  private WorkflowStub stub(String workflowId) {
    return client.newUntypedWorkflowStub(workflowId);
  }

  private static HttpResponse<Map<String, String>> accepted(
      String workflowId, ControlOutcome done) {
    return HttpResponse.accepted()
        .body(
            Map.of(
                "workflowId",
                workflowId,
                "control",
                done.control(),
                "by",
                done.by(),
                "phase",
                done.phase().name(),
                "message",
                done.message()));
  }

  /** The name of the token the call was authorized with (set by {@link ApiAuthFilter}). */
  private static String caller(HttpRequest<?> http) {
    return http.getAttribute(ApiAuthFilter.CALLER, Caller.class)
        .map(Caller::name)
        .orElse("unknown");
  }

  @Error(exception = UnknownClusterException.class)
  public HttpResponse<ApiError> unknownCluster(HttpRequest<?> http, UnknownClusterException e) {
    return UnknownClusters.response(http, e, inventory);
  }

  /** A control the runbook's validator refused: 409 with its reason, nothing was done. */
  @Error(exception = RunbookControls.Refused.class)
  public HttpResponse<ApiError> controlRefused(RunbookControls.Refused e) {
    return HttpResponse.<ApiError>status(HttpStatus.CONFLICT)
        .body(new ApiError(e.getMessage(), e.workflowId()));
  }

  @Error(exception = StartChecks.RunbookRefused.class)
  public HttpResponse<ApiError> refused(StartChecks.RunbookRefused e) {
    return HttpResponse.<ApiError>status(HttpStatus.CONFLICT).body(new ApiError(e.getMessage()));
  }

  @Error(exception = IllegalArgumentException.class)
  public HttpResponse<ApiError> badRequest(IllegalArgumentException e) {
    return HttpResponse.badRequest(new ApiError(e.getMessage()));
  }

  @Error(exception = RunbookStarter.RunbookAlreadyRunning.class)
  public HttpResponse<ApiError> alreadyRunning(RunbookStarter.RunbookAlreadyRunning e) {
    return HttpResponse.<ApiError>status(HttpStatus.CONFLICT)
        .body(new ApiError(e.getMessage(), e.workflowId()));
  }

  @Error(exception = WorkflowNotFoundException.class)
  public HttpResponse<ApiError> notFound(WorkflowNotFoundException e) {
    return HttpResponse.notFound(
        new ApiError("no runbook with id " + e.getExecution().getWorkflowId()));
  }

  /**
   * The generic start: the body as bound to the runbook's request record, on the cluster (or fleet)
   * the path names, as the runbook takes it from a caller.
   */
  private <R> HttpResponse<RunbookStarter.Started> start(
      RunbookDefinition<R> runbook, String target, R body, HttpRequest<?> http) {
    return HttpResponse.accepted()
        .body(starter.start(runbook, onTarget(runbook, target, body, http), caller(http)));
  }

  private static <R> R onTarget(
      RunbookDefinition<R> runbook, String target, R body, HttpRequest<?> http) {
    return runbook
        .fromCaller()
        .apply(RunbookRequests.onTarget(runbook, body, target), caller(http));
  }

  private static HttpResponse<ClusterSchedules.Kept> kept(ClusterSchedules.Kept kept) {
    return HttpResponse.<ClusterSchedules.Kept>status(
            kept.applied().equals("created") ? HttpStatus.CREATED : HttpStatus.OK)
        .body(kept);
  }

  @Error(exception = ClusterSchedules.NoSchedules.class)
  public HttpResponse<ApiError> noSchedules(ClusterSchedules.NoSchedules e) {
    return HttpResponse.<ApiError>status(HttpStatus.SERVICE_UNAVAILABLE)
        .body(new ApiError(e.getMessage()));
  }
}
