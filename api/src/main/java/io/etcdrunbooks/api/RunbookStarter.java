package io.etcdrunbooks.api;

import io.etcdrunbooks.inventory.InventorySource;
import io.etcdrunbooks.runtime.RunbooksConfig;
import io.etcdrunbooks.runtime.SearchAttributesConfig;
import io.etcdrunbooks.workflows.RunbookDefinition;
import io.etcdrunbooks.workflows.common.RunbookSearchAttributes;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.api.enums.v1.WorkflowIdReusePolicy;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionAlreadyStarted;
import io.temporal.client.WorkflowExecutionDescription;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowServiceException;
import io.temporal.client.WorkflowStub;
import jakarta.inject.Singleton;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * Starts runbooks on Temporal after checking the request against the inventory. Runbooks that
 * change a cluster share its change id ({@link
 * io.etcdrunbooks.workflows.common.RunbookIds#changing}), so Temporal itself refuses a second one
 * while one runs; the refusal names the running one.
 */
@Singleton
public final class RunbookStarter {

  /** Memo keys every runbook started here carries; the list endpoint reads them back. */
  public static final String STARTED_BY = "startedBy";

  public static final String CLUSTER = "cluster";
  public static final String MEMBER = "member";
  public static final String FLEET = "fleet";

  private final WorkflowClient client;
  private final RunbooksConfig config;
  private final SearchAttributesConfig searchAttributes;
  private final InventorySource inventory;
  private final StartRules rules;

  public RunbookStarter(
      WorkflowClient client,
      RunbooksConfig config,
      SearchAttributesConfig searchAttributes,
      InventorySource inventory,
      StartRules rules) {
    this.client = client;
    this.config = config;
    this.searchAttributes = searchAttributes;
    this.inventory = inventory;
    this.rules = rules;
  }

  /**
   * Starts any runbook of the catalog: its cluster must be in the inventory and its request pass
   * its {@link StartRules} (400) before anything is touched; a real run of a runbook that changes
   * the cluster is then refused while another change runs (409, naming it), and the cluster's state
   * checked (409). The workflow id is the definition's; a dry run gets one of its own.
   *
   * @param startedBy who started it (the API token's name, "slack:<user>" or "alertmanager"), kept
   *     in the memo
   */
  public <R> Started start(RunbookDefinition<R> runbook, R request, String startedBy) {
    String target = RunbookRequests.target(runbook, request);
    if (runbook.target() == RunbookDefinition.Target.CLUSTER) inventory.get().cluster(target);
    StartRules.Rule<R> rule = rules.of(runbook);
    rule.validate().accept(request);
    boolean dryRun = RunbookRequests.dryRun(request);
    String id = runbook.workflowIdOf(target);
    if (runbook.changesCluster()) {
      id = changeId(id, dryRun);
      if (!dryRun) refuseIfRunning(id);
    }
    rule.check().accept(request);
    Map<String, String> memo = new LinkedHashMap<>(rule.memo().apply(request));
    if (runbook.target() == RunbookDefinition.Target.FLEET) memo.put(FLEET, target);
    String cluster = runbook.target() == RunbookDefinition.Target.CLUSTER ? target : "";
    WorkflowStub workflow =
        client.newUntypedWorkflowStub(
            runbook.type(), options(runbook.type(), id, startedBy, cluster, memo));
    try {
      WorkflowExecution execution = workflow.start(request);
      return new Started(execution.getWorkflowId(), execution.getRunId());
    } catch (WorkflowExecutionAlreadyStarted e) {
      throw running(id, e.getExecution().getRunId());
    } catch (WorkflowServiceException e) {
      if (!searchAttributes.enabled()) throw e;
      throw SearchAttributesNotRegistered.of(e).orElseThrow(() -> e);
    }
  }

  /**
   * Another change of the cluster runs: refused naming it before the cluster is read (Temporal's
   * refusal of the same id stays the guard; this only puts the more useful answer first).
   */
  private void refuseIfRunning(String id) {
    try {
      WorkflowExecutionDescription running = client.newUntypedWorkflowStub(id).describe();
      if (running.getStatus() == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) {
        throw running(id, running.getExecution().getRunId());
      }
    } catch (WorkflowNotFoundException e) {
      // nothing runs under the change id
    }
  }

  /**
   * Dry runs change nothing: they get an id of their own instead of holding the cluster's change
   * id.
   */
  private static String changeId(String changeId, boolean dryRun) {
    return dryRun
        ? changeId + "-dry-run-" + UUID.randomUUID().toString().substring(0, 8)
        : changeId;
  }

  private WorkflowOptions options(
      String runbook, String id, String startedBy, String cluster, Map<String, String> extraMemo) {
    Map<String, Object> memo = new LinkedHashMap<>(extraMemo);
    memo.put(STARTED_BY, startedBy == null ? "unknown" : startedBy);
    memo.put(CLUSTER, cluster);
    WorkflowOptions.Builder options =
        WorkflowOptions.newBuilder()
            .setWorkflowId(id)
            .setMemo(memo)
            .setTaskQueue(config.taskQueue())
            .setWorkflowIdReusePolicy(
                WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE)
            .setWorkflowIdConflictPolicy(WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_FAIL);
    if (searchAttributes.enabled()) {
      // the runbook upserts its phase only when its run carries these (ProgressTracker)
      options.setTypedSearchAttributes(
          RunbookSearchAttributes.atStart(
              runbook, cluster, startedBy, extraMemo.getOrDefault(FLEET, "")));
    }
    return options.build();
  }

  private RunbookAlreadyRunning running(String id, String runId) {
    String type = "";
    String member = "";
    String startedBy = "";
    try {
      WorkflowExecutionDescription running = client.newUntypedWorkflowStub(id).describe();
      type = running.getWorkflowType();
      member = memo(() -> (String) running.getMemo(MEMBER, String.class));
      startedBy = memo(() -> (String) running.getMemo(STARTED_BY, String.class));
    } catch (RuntimeException e) {
      // the refusal stands without the details: Temporal refused the start either way
    }
    return new RunbookAlreadyRunning(id, runId, type, member, startedBy);
  }

  private static String memo(Supplier<String> read) {
    String value = read.get();
    return value == null ? "" : value;
  }

  public record Started(String workflowId, String runId) {}

  /**
   * A runbook of the same id already runs: another change of the cluster, or the same backup or
   * schedule.
   */
  public static final class RunbookAlreadyRunning extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String workflowId;
    private final String runningType;
    private final String member;

    RunbookAlreadyRunning(
        String workflowId, String runId, String runningType, String member, String startedBy) {
      super(
          "refused: "
              + (runningType.isEmpty()
                  ? "a runbook"
                  : runningType + (member.isEmpty() ? "" : " of " + member))
              + (startedBy.isEmpty() ? "" : " started by " + startedBy)
              + " is already running as workflow "
              + workflowId
              + " (run "
              + runId
              + "), and a cluster has one such runbook at a time. Follow it with GET /api/v1/runbooks/"
              + workflowId
              + ", or pause or cancel it, then start this one again");
      this.workflowId = workflowId;
      this.runningType = runningType;
      this.member = member;
    }

    public String workflowId() {
      return workflowId;
    }

    /** The workflow type of the running one (empty when it could not be read). */
    public String runningType() {
      return runningType;
    }

    /** The member the running one replaces (empty for other runbooks). */
    public String member() {
      return member;
    }
  }
}
