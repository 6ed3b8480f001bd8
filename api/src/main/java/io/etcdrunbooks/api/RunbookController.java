package io.etcdrunbooks.api;

import io.etcdrunbooks.inventory.UnknownClusterException;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.Progress;
import io.etcdrunbooks.workflows.common.Runbook;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.replacemember.ReplaceMemberRequest;
import io.etcdrunbooks.workflows.backup.BackupScheduleRequest;
import io.etcdrunbooks.workflows.restore.RestoreRequest;
import io.etcdrunbooks.workflows.rollback.RollbackRequest;
import io.etcdrunbooks.workflows.upgrade.UpgradeRequest;
import io.etcdrunbooks.api.auth.ApiAuthFilter;
import io.etcdrunbooks.api.auth.Caller;
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
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowStub;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Starts, follows and signals runbooks. */
@Controller("/api/v1")
@ExecuteOn(TaskExecutors.BLOCKING)
public final class RunbookController {

  private final RunbookStarter starter;
  private final WorkflowClient client;

  public RunbookController(RunbookStarter starter, WorkflowClient client) {
    this.starter = starter;
    this.client = client;
  }

  /** Body: {"targetVersion":"3.5.30","dryRun":false}. Returns 202 with the workflow id. */
  @Post("/clusters/{cluster}/upgrade")
  public HttpResponse<RunbookStarter.Started> upgrade(@PathVariable String cluster, @Body UpgradeBody body, HttpRequest<?> http) {
    RunbookStarter.Started started = starter.startUpgrade(
        new UpgradeRequest(cluster, body.targetVersion(), body.dryRun(), body.memberTimeoutSeconds()), caller(http));
    return HttpResponse.accepted().body(started);
  }

  public record UpgradeBody(String targetVersion, boolean dryRun, int memberTimeoutSeconds) {}

  /** Body: {"toVersion":"3.4.23","dryRun":false}; without toVersion, the oldest version running. Returns 202. */
  @Post("/clusters/{cluster}/rollback")
  public HttpResponse<RunbookStarter.Started> rollback(@PathVariable String cluster, @Body RollbackBody body, HttpRequest<?> http) {
    return HttpResponse.accepted().body(starter.startRollback(
        new RollbackRequest(cluster, body.toVersion(), body.dryRun(), body.memberTimeoutSeconds(), body.acknowledgeDataLoss(),
            body.backupId()), caller(http)));
  }

  public record RollbackBody(String toVersion, boolean dryRun, int memberTimeoutSeconds, boolean acknowledgeDataLoss, String backupId) {}

  /** Body: {"intervalMinutes":0} (0: the inventory's backup.intervalMinutes). Returns 202; the schedule runs until cancelled. */
  @Post("/clusters/{cluster}/backup-schedule")
  public HttpResponse<RunbookStarter.Started> backupSchedule(@PathVariable String cluster, @Body BackupScheduleBody body,
      HttpRequest<?> http) {
    return HttpResponse.accepted().body(starter.startBackupSchedule(new BackupScheduleRequest(cluster, body.intervalMinutes(), 0, 0),
        caller(http)));
  }

  public record BackupScheduleBody(int intervalMinutes) {}

  /** Body: {"backupId":"latest","acknowledgeDataLoss":true}; refused by the runbook without acknowledgeDataLoss. Returns 202. */
  @Post("/clusters/{cluster}/restore")
  public HttpResponse<RunbookStarter.Started> restore(@PathVariable String cluster, @Body RestoreBody body, HttpRequest<?> http) {
    return HttpResponse.accepted().body(starter.startRestore(new RestoreRequest(cluster, body.backupId(), body.acknowledgeDataLoss(),
        body.etcdVersion(), body.dryRun(), body.memberTimeoutSeconds(), body.apiServerTimeoutSeconds()), caller(http)));
  }

  public record RestoreBody(String backupId, boolean acknowledgeDataLoss, String etcdVersion, boolean dryRun, int memberTimeoutSeconds,
      int apiServerTimeoutSeconds) {}

  /**
   * Body: {"failedMember":"m2","replacement":{"name":"m4","host":"10.0.0.4",...},"force":false,"requireApproval":false,
   * "dryRun":false,"memberTimeoutSeconds":0,"apiServerTimeoutSeconds":0}; without replacement, the new member runs on
   * the failed member's host. Returns 202 with the workflow id.
   */
  @Post("/clusters/{cluster}/replace-member")
  public HttpResponse<RunbookStarter.Started> replaceMember(@PathVariable String cluster, @Body ReplaceMemberBody body,
      HttpRequest<?> http) {
    return HttpResponse.accepted().body(starter.startReplaceMember(new ReplaceMemberRequest(cluster, body.failedMember(),
        body.replacement(), body.force(), body.requireApproval(), body.dryRun(), body.memberTimeoutSeconds(),
        body.apiServerTimeoutSeconds(), "api: " + caller(http)), caller(http)));
  }

  public record ReplaceMemberBody(String failedMember, MemberPlacement replacement, boolean force, boolean requireApproval,
      boolean dryRun, int memberTimeoutSeconds, int apiServerTimeoutSeconds) {}

  /** Status, progress and, once finished, the result or the failure of a runbook. */
  @Get("/runbooks/{workflowId}")
  public RunbookView runbook(@PathVariable String workflowId) {
    WorkflowStub stub = client.newUntypedWorkflowStub(workflowId);
    WorkflowExecutionStatus status = stub.describe().getStatus();
    Progress progress = stub.query("progress", Progress.class);
    Object result = null;
    String failure = null;
    if (status != WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) {
      try {
        result = stub.getResult(1, TimeUnit.SECONDS, Map.class);
      } catch (WorkflowFailedException e) {
        failure = Failures.rootMessage(e);
      } catch (java.util.concurrent.TimeoutException e) {
        failure = null;
      }
    }
    return new RunbookView(workflowId, status.name().replace("WORKFLOW_EXECUTION_STATUS_", ""), progress, result, failure);
  }

  public record RunbookView(String workflowId, String status, Progress progress, Object result, String failure) {}

  @Post("/runbooks/{workflowId}/pause")
  public HttpResponse<Map<String, String>> pause(@PathVariable String workflowId) {
    client.newWorkflowStub(Runbook.class, workflowId).pause();
    return HttpResponse.accepted().body(Map.of("workflowId", workflowId, "signal", "pause"));
  }

  @Post("/runbooks/{workflowId}/resume")
  public HttpResponse<Map<String, String>> resume(@PathVariable String workflowId) {
    client.newWorkflowStub(Runbook.class, workflowId).resume();
    return HttpResponse.accepted().body(Map.of("workflowId", workflowId, "signal", "resume"));
  }

  /** Lets a runbook that waits for approval (ReplaceMember with requireApproval) go on. */
  @Post("/runbooks/{workflowId}/approve")
  public HttpResponse<Map<String, String>> approve(@PathVariable String workflowId, HttpRequest<?> http) {
    // Untyped, so any runbook type with an approve signal can be approved here.
    client.newUntypedWorkflowStub(workflowId).signal("approve", caller(http));
    return HttpResponse.accepted().body(Map.of("workflowId", workflowId, "signal", "approve"));
  }

  /** The name of the token the call was authorized with (set by {@link ApiAuthFilter}). */
  private static String caller(HttpRequest<?> http) {
    return http.getAttribute(ApiAuthFilter.CALLER, Caller.class).map(Caller::name).orElse("unknown");
  }

  @Error(exception = UnknownClusterException.class)
  public HttpResponse<ApiError> unknownCluster(UnknownClusterException e) {
    return HttpResponse.notFound(new ApiError(e.getMessage()));
  }

  @Error(exception = IllegalArgumentException.class)
  public HttpResponse<ApiError> badRequest(IllegalArgumentException e) {
    return HttpResponse.badRequest(new ApiError(e.getMessage()));
  }

  @Error(exception = RunbookStarter.RunbookAlreadyRunning.class)
  public HttpResponse<ApiError> alreadyRunning(RunbookStarter.RunbookAlreadyRunning e) {
    return HttpResponse.<ApiError>status(HttpStatus.CONFLICT).body(new ApiError(e.getMessage(), e.workflowId()));
  }

  @Error(exception = WorkflowNotFoundException.class)
  public HttpResponse<ApiError> notFound(WorkflowNotFoundException e) {
    return HttpResponse.notFound(new ApiError("no runbook with id " + e.getExecution().getWorkflowId()));
  }
}
