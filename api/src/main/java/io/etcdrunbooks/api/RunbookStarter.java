package io.etcdrunbooks.api;

import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.workflows.backup.BackupScheduleRequest;
import io.etcdrunbooks.workflows.backup.BackupScheduleWorkflow;
import io.etcdrunbooks.workflows.replacemember.ReplaceMemberRequest;
import io.etcdrunbooks.workflows.replacemember.ReplaceMemberWorkflow;
import io.etcdrunbooks.workflows.restore.RestoreClusterWorkflow;
import io.etcdrunbooks.workflows.restore.RestoreRequest;
import io.etcdrunbooks.workflows.rollback.RollbackClusterWorkflow;
import io.etcdrunbooks.workflows.rollback.RollbackRequest;
import io.etcdrunbooks.workflows.upgrade.UpgradeClusterWorkflow;
import io.etcdrunbooks.workflows.upgrade.UpgradeRequest;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.api.enums.v1.WorkflowIdReusePolicy;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionAlreadyStarted;
import io.temporal.client.WorkflowOptions;
import jakarta.inject.Singleton;
import java.util.UUID;
import io.etcdrunbooks.inventory.InventorySource;

/** Starts runbooks on Temporal after checking the request against the inventory. */
@Singleton
public final class RunbookStarter {

  private final WorkflowClient client;
  private final RunbooksConfig config;
  private final InventorySource inventory;

  public RunbookStarter(WorkflowClient client, RunbooksConfig config, InventorySource inventory) {
    this.client = client;
    this.config = config;
    this.inventory = inventory;
  }

  /** Starts an upgrade; one per cluster at a time (the workflow id is derived from the cluster). */
  public Started startUpgrade(UpgradeRequest request, String startedBy) {
    inventory.get().cluster(request.cluster());
    if (request.targetVersion() == null || !request.targetVersion().matches("\\d+\\.\\d+\\.\\d+")) {
      throw new IllegalArgumentException("targetVersion must look like 3.5.30, got '" + request.targetVersion() + "'");
    }
    String id = request.dryRun()
        ? UpgradeClusterWorkflow.workflowId(request.cluster()) + "-dry-run-" + UUID.randomUUID().toString().substring(0, 8)
        : UpgradeClusterWorkflow.workflowId(request.cluster());
    UpgradeClusterWorkflow workflow = client.newWorkflowStub(UpgradeClusterWorkflow.class, options(id, startedBy));
    return start(id, () -> WorkflowClient.start(workflow::upgrade, request));
  }

  /** Starts a rollback of a mixed cluster to its old version (or to {@code toVersion}). */
  public Started startRollback(RollbackRequest request, String startedBy) {
    inventory.get().cluster(request.cluster());
    if (request.toVersion() != null && !request.toVersion().isBlank() && !request.toVersion().matches("\\d+\\.\\d+\\.\\d+")) {
      throw new IllegalArgumentException("toVersion must look like 3.4.23 (or be left out), got '" + request.toVersion() + "'");
    }
    String id = RollbackClusterWorkflow.workflowId(request.cluster());
    RollbackClusterWorkflow workflow = client.newWorkflowStub(RollbackClusterWorkflow.class, options(id, startedBy));
    return start(id, () -> WorkflowClient.start(workflow::rollback, request));
  }

  /**
   * Starts the replacement of a member; one per member at a time (the workflow id is derived from cluster and member),
   * so repeated deliveries of one alert start one runbook. Dry runs get an id of their own.
   */
  public Started startReplaceMember(ReplaceMemberRequest request, String startedBy) {
    ClusterSpec cluster = inventory.get().cluster(request.cluster());
    if (request.failedMember() == null || request.failedMember().isBlank()) {
      throw new IllegalArgumentException("failedMember is required: the inventory name of the member to replace; cluster '"
          + request.cluster() + "' has " + cluster.members().stream().map(MemberSpec::name).toList());
    }
    cluster.member(request.failedMember());
    if (request.memberTimeoutSeconds() < 0 || request.apiServerTimeoutSeconds() < 0) {
      throw new IllegalArgumentException("memberTimeoutSeconds and apiServerTimeoutSeconds must be 0 (the default, "
          + ReplaceMemberRequest.DEFAULT_MEMBER_TIMEOUT_SECONDS + " s) or more, got " + request.memberTimeoutSeconds()
          + " and " + request.apiServerTimeoutSeconds());
    }
    String base = ReplaceMemberWorkflow.workflowId(request.cluster(), request.failedMember());
    String id = request.dryRun() ? base + "-dry-run-" + UUID.randomUUID().toString().substring(0, 8) : base;
    ReplaceMemberWorkflow workflow = client.newWorkflowStub(ReplaceMemberWorkflow.class, options(id, startedBy));
    return start(id, () -> WorkflowClient.start(workflow::replace, request));
  }

  /**
   * Starts a restore; one per cluster at a time. A restore without acknowledgeDataLoss is refused here, before
   * Temporal sees it (the runbook refuses it too).
   */
  public Started startRestore(RestoreRequest request, String startedBy) {
    inventory.get().cluster(request.cluster());
    if (!request.acknowledgeDataLoss()) {
      throw new IllegalArgumentException("acknowledgeDataLoss must be true: a restore replaces the cluster's data with the backup's"
          + " and every write made after the backup is lost");
    }
    if (request.etcdVersion() != null && !request.etcdVersion().isBlank() && !request.etcdVersion().matches("\\d+\\.\\d+\\.\\d+")) {
      throw new IllegalArgumentException("etcdVersion must look like 3.4.23 (or be left out), got '" + request.etcdVersion() + "'");
    }
    String id = request.dryRun()
        ? RestoreClusterWorkflow.workflowId(request.cluster()) + "-dry-run-" + UUID.randomUUID().toString().substring(0, 8)
        : RestoreClusterWorkflow.workflowId(request.cluster());
    RestoreClusterWorkflow workflow = client.newWorkflowStub(RestoreClusterWorkflow.class, options(id, startedBy));
    return start(id, () -> WorkflowClient.start(workflow::restore, request));
  }

  /** Starts the cluster's backup schedule (one per cluster); it runs until cancelled. */
  public Started startBackupSchedule(BackupScheduleRequest request, String startedBy) {
    inventory.get().cluster(request.cluster());
    if (request.intervalMinutes() < 0) {
      throw new IllegalArgumentException("intervalMinutes must be 0 (the inventory's backup.intervalMinutes) or more, got "
          + request.intervalMinutes());
    }
    String id = BackupScheduleWorkflow.workflowId(request.cluster());
    BackupScheduleWorkflow workflow = client.newWorkflowStub(BackupScheduleWorkflow.class, options(id, startedBy));
    return start(id, () -> WorkflowClient.start(workflow::run, request));
  }

  /** @param startedBy who started it (the API token's name, or "alertmanager"), kept in the workflow's memo */
  private WorkflowOptions options(String id, String startedBy) {
    return WorkflowOptions.newBuilder()
        .setWorkflowId(id)
        .setMemo(java.util.Map.of("startedBy", startedBy == null ? "unknown" : startedBy))
        .setTaskQueue(config.taskQueue())
        .setWorkflowIdReusePolicy(WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE)
        .setWorkflowIdConflictPolicy(WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_FAIL)
        .build();
  }

  private static Started start(String id, java.util.function.Supplier<WorkflowExecution> start) {
    try {
      WorkflowExecution execution = start.get();
      return new Started(execution.getWorkflowId(), execution.getRunId());
    } catch (WorkflowExecutionAlreadyStarted e) {
      throw new RunbookAlreadyRunning(id, e.getExecution().getRunId());
    }
  }

  public record Started(String workflowId, String runId) {}

  /** A mutating runbook already runs on the cluster. */
  public static final class RunbookAlreadyRunning extends RuntimeException {
    private final String workflowId;

    RunbookAlreadyRunning(String workflowId, String runId) {
      super("this runbook is already running on the cluster: workflow " + workflowId + " (run " + runId
          + "); follow it, or pause/cancel it, before starting another");
      this.workflowId = workflowId;
    }

    public String workflowId() {
      return workflowId;
    }
  }
}
