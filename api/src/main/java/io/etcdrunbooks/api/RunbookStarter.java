package io.etcdrunbooks.api;

import io.etcdrunbooks.workflows.upgrade.UpgradeClusterWorkflow;
import io.etcdrunbooks.workflows.upgrade.UpgradeRequest;
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
  public Started startUpgrade(UpgradeRequest request) {
    inventory.get().cluster(request.cluster());
    if (request.targetVersion() == null || !request.targetVersion().matches("\\d+\\.\\d+\\.\\d+")) {
      throw new IllegalArgumentException("targetVersion must look like 3.5.30, got '" + request.targetVersion() + "'");
    }
    String id = request.dryRun()
        ? UpgradeClusterWorkflow.workflowId(request.cluster()) + "-dry-run-" + UUID.randomUUID().toString().substring(0, 8)
        : UpgradeClusterWorkflow.workflowId(request.cluster());
    UpgradeClusterWorkflow workflow = client.newWorkflowStub(UpgradeClusterWorkflow.class, WorkflowOptions.newBuilder()
        .setWorkflowId(id)
        .setTaskQueue(config.taskQueue())
        .setWorkflowIdReusePolicy(WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE)
        .setWorkflowIdConflictPolicy(WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_FAIL)
        .build());
    try {
      var execution = WorkflowClient.start(workflow::upgrade, request);
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
      super("an upgrade of this cluster is already running: workflow " + workflowId + " (run " + runId
          + "); follow it, or pause/cancel it, before starting another");
      this.workflowId = workflowId;
    }

    public String workflowId() {
      return workflowId;
    }
  }
}
