package io.etcdrunbooks.api;

import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.FleetSelector;
import io.etcdrunbooks.inventory.Inventory;
import io.etcdrunbooks.inventory.InventorySource;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.runtime.RunbooksConfig;
import io.etcdrunbooks.runtime.SearchAttributesConfig;
import io.etcdrunbooks.workflows.activities.ReleaseActivities;
import io.etcdrunbooks.workflows.backup.BackupClusterRequest;
import io.etcdrunbooks.workflows.backup.BackupClusterWorkflow;
import io.etcdrunbooks.workflows.backup.BackupScheduleRequest;
import io.etcdrunbooks.workflows.backup.BackupScheduleWorkflow;
import io.etcdrunbooks.workflows.common.RunbookSearchAttributes;
import io.etcdrunbooks.workflows.fleet.FleetUpgradeRequest;
import io.etcdrunbooks.workflows.fleet.FleetUpgradeWorkflow;
import io.etcdrunbooks.workflows.maintenance.MaintenanceRequest;
import io.etcdrunbooks.workflows.maintenance.MaintenanceScheduleRequest;
import io.etcdrunbooks.workflows.maintenance.MaintenanceScheduleWorkflow;
import io.etcdrunbooks.workflows.maintenance.MaintenanceWorkflow;
import io.etcdrunbooks.workflows.migrate.MigrateRequest;
import io.etcdrunbooks.workflows.migrate.MigrateV2ToV3Workflow;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.EtcdVersion;
import io.etcdrunbooks.workflows.recover.RecoverQuorumRequest;
import io.etcdrunbooks.workflows.recover.RecoverQuorumWorkflow;
import io.etcdrunbooks.workflows.replacemember.ReplaceMemberRequest;
import io.etcdrunbooks.workflows.replacemember.ReplaceMemberWorkflow;
import io.etcdrunbooks.workflows.restore.RestoreClusterWorkflow;
import io.etcdrunbooks.workflows.restore.RestoreRequest;
import io.etcdrunbooks.workflows.rollback.RollbackClusterWorkflow;
import io.etcdrunbooks.workflows.rollback.RollbackRequest;
import io.etcdrunbooks.workflows.scale.ScaleClusterRequest;
import io.etcdrunbooks.workflows.scale.ScaleClusterWorkflow;
import io.etcdrunbooks.workflows.scale.ScalePlanning;
import io.etcdrunbooks.workflows.tls.ReconfigureTlsRequest;
import io.etcdrunbooks.workflows.tls.ReconfigureTlsWorkflow;
import io.etcdrunbooks.workflows.upgrade.UpgradeClusterWorkflow;
import io.etcdrunbooks.workflows.upgrade.UpgradeRequest;
import io.micronaut.context.BeanProvider;
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
import jakarta.inject.Singleton;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
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
  private final StartChecks checks;
  private final BeanProvider<ReleaseActivities> releases;

  /**
   * @param releases what the inventory's binary source offers, as the worker's preflight reads it;
   *     looked up at each start, so that an inventory without a usable releases section only skips
   *     that check
   */
  public RunbookStarter(
      WorkflowClient client,
      RunbooksConfig config,
      SearchAttributesConfig searchAttributes,
      InventorySource inventory,
      StartChecks checks,
      BeanProvider<ReleaseActivities> releases) {
    this.client = client;
    this.config = config;
    this.searchAttributes = searchAttributes;
    this.inventory = inventory;
    this.checks = checks;
    this.releases = releases;
  }

  public Started startUpgrade(UpgradeRequest request, String startedBy) {
    inventory.get().cluster(request.cluster());
    if (request.targetVersion() == null || request.targetVersion().isBlank()) {
      throw new IllegalArgumentException(
          "targetVersion is required: the etcd version to end on, such as 3.5.30");
    }
    EtcdVersion target = EtcdVersion.parse("targetVersion", request.targetVersion());
    offered(request.cluster(), "targetVersion", request.targetVersion());
    requireTimeout("memberTimeoutSeconds", request.memberTimeoutSeconds());
    String id = changeId(UpgradeClusterWorkflow.workflowId(request.cluster()), request.dryRun());
    if (!request.dryRun()) {
      refuseIfRunning(id);
      checks.upgrade(request.cluster(), target);
    }
    return start(
        id,
        UpgradeClusterWorkflow.class,
        options(UpgradeClusterWorkflow.TYPE, id, startedBy, request.cluster(), Map.of()),
        workflow -> WorkflowClient.start(workflow::upgrade, request));
  }

  /**
   * A rollback of a mixed cluster to its old version (or to {@code toVersion}), or through a
   * restore.
   */
  public Started startRollback(RollbackRequest request, String startedBy) {
    inventory.get().cluster(request.cluster());
    optionalVersion(request.cluster(), "toVersion", request.toVersion());
    requireTimeout("memberTimeoutSeconds", request.memberTimeoutSeconds());
    StartChecks.backupId("backupId", request.backupId());
    String id = changeId(RollbackClusterWorkflow.workflowId(request.cluster()), request.dryRun());
    if (!request.dryRun()) {
      refuseIfRunning(id);
      checks.rollback(request.cluster(), request.toVersion(), request.acknowledgeDataLoss());
    }
    return start(
        id,
        RollbackClusterWorkflow.class,
        options(RollbackClusterWorkflow.TYPE, id, startedBy, request.cluster(), Map.of()),
        workflow -> WorkflowClient.start(workflow::rollback, request));
  }

  /**
   * The replacement of a member; the memo names the member, so a repeated alert for it is told from
   * another change.
   */
  public Started startReplaceMember(ReplaceMemberRequest request, String startedBy) {
    ClusterSpec cluster = inventory.get().cluster(request.cluster());
    if (request.failedMember() == null || request.failedMember().isBlank()) {
      throw new IllegalArgumentException(
          "failedMember is required: the inventory name of the member to replace; cluster '"
              + request.cluster()
              + "' has "
              + cluster.members().stream().map(MemberSpec::name).toList());
    }
    cluster.member(request.failedMember());
    requireTimeout("memberTimeoutSeconds", request.memberTimeoutSeconds());
    requireTimeout("apiServerTimeoutSeconds", request.apiServerTimeoutSeconds());
    String id = changeId(ReplaceMemberWorkflow.workflowId(request.cluster()), request.dryRun());
    if (!request.dryRun()) refuseIfRunning(id);
    checks.replaceMember(cluster, request);
    if (!request.dryRun())
      checks.replaceMember(request.cluster(), request.failedMember(), request.force());
    return start(
        id,
        ReplaceMemberWorkflow.class,
        options(
            ReplaceMemberWorkflow.TYPE,
            id,
            startedBy,
            request.cluster(),
            Map.of(MEMBER, request.failedMember())),
        workflow -> WorkflowClient.start(workflow::replace, request));
  }

  /**
   * A restore; refused here without acknowledgeDataLoss, before Temporal sees it (the runbook
   * refuses it too).
   */
  public Started startRestore(RestoreRequest request, String startedBy) {
    inventory.get().cluster(request.cluster());
    if (!request.acknowledgeDataLoss()) {
      throw new IllegalArgumentException(
          "acknowledgeDataLoss must be true: a restore replaces the cluster's data with the backup's"
              + " and every write made after the backup is lost");
    }
    optionalVersion(request.cluster(), "etcdVersion", request.etcdVersion());
    StartChecks.backupId("backupId", request.backupId());
    requireTimeout("memberTimeoutSeconds", request.memberTimeoutSeconds());
    requireTimeout("apiServerTimeoutSeconds", request.apiServerTimeoutSeconds());
    String id = changeId(RestoreClusterWorkflow.workflowId(request.cluster()), request.dryRun());
    return start(
        id,
        RestoreClusterWorkflow.class,
        options(RestoreClusterWorkflow.TYPE, id, startedBy, request.cluster(), Map.of()),
        workflow -> WorkflowClient.start(workflow::restore, request));
  }

  /** A v2 -> v3 migration; the cluster's stores and apiservers are checked by its preflight. */
  public Started startMigration(MigrateRequest request, String startedBy) {
    inventory.get().cluster(request.cluster());
    requireTimeout("memberTimeoutSeconds", request.memberTimeoutSeconds());
    requireTimeout("apiServerTimeoutSeconds", request.apiServerTimeoutSeconds());
    String id = changeId(MigrateV2ToV3Workflow.workflowId(request.cluster()), request.dryRun());
    if (!request.dryRun()) refuseIfRunning(id);
    return start(
        id,
        MigrateV2ToV3Workflow.class,
        options(MigrateV2ToV3Workflow.TYPE, id, startedBy, request.cluster(), Map.of()),
        workflow -> WorkflowClient.start(workflow::migrate, request));
  }

  /**
   * Compaction, defragmentation and the NOSPACE alarm; the compaction revision is checked against
   * the cluster's by its preflight.
   */
  public Started startMaintenance(MaintenanceRequest request, String startedBy) {
    inventory.get().cluster(request.cluster());
    if (request.compactRevision() < 0 || request.compactKeepRevisions() < -1) {
      throw new IllegalArgumentException(
          "compactRevision must be 0 or more and compactKeepRevisions -1 (everything) or more,"
              + " got %d and %d"
                  .formatted(request.compactRevision(), request.compactKeepRevisions()));
    }
    if (request.compactRevision() > 0 && request.compactKeepRevisions() != 0) {
      throw new IllegalArgumentException("give compactRevision or compactKeepRevisions, not both");
    }
    String id = changeId(MaintenanceWorkflow.workflowId(request.cluster()), request.dryRun());
    if (!request.dryRun()) refuseIfRunning(id);
    return start(
        id,
        MaintenanceWorkflow.class,
        options(MaintenanceWorkflow.TYPE, id, startedBy, request.cluster(), Map.of()),
        workflow -> WorkflowClient.start(workflow::maintain, request));
  }

  /**
   * A scaling; refused here when the target is not an odd number of 3 or more, the new members are
   * not as many as the target needs, a placement is incomplete or on an inventory member's URL, or
   * a new host refuses SSH connections. etcd's own view is checked by its preflight.
   */
  public Started startScale(ScaleClusterRequest request, String startedBy) {
    ClusterSpec cluster = inventory.get().cluster(request.cluster());
    List<String> problems = ScalePlanning.inputProblems(request);
    if (!problems.isEmpty()) throw new IllegalArgumentException(String.join("; ", problems));
    requireTimeout("memberTimeoutSeconds", request.memberTimeoutSeconds());
    requireTimeout("apiServerTimeoutSeconds", request.apiServerTimeoutSeconds());
    String id = changeId(ScaleClusterWorkflow.workflowId(request.cluster()), request.dryRun());
    if (!request.dryRun()) refuseIfRunning(id);
    checks.scale(cluster, request);
    return start(
        id,
        ScaleClusterWorkflow.class,
        options(ScaleClusterWorkflow.TYPE, id, startedBy, request.cluster(), Map.of()),
        workflow -> WorkflowClient.start(workflow::scale, request));
  }

  /**
   * A recovery of a cluster that lost quorum; refused here without acknowledgeDataLoss. It waits
   * for an admin's approval before it touches anything ({@link ApprovalRules}).
   */
  public Started startRecoverQuorum(RecoverQuorumRequest request, String startedBy) {
    ClusterSpec cluster = inventory.get().cluster(request.cluster());
    if (!request.acknowledgeDataLoss()) {
      throw new IllegalArgumentException(
          "acknowledgeDataLoss must be true: the cluster is rebuilt from one member (or a backup),"
              + " and writes that reached only the lost members are lost");
    }
    if (request.confirmLossSeconds() < 0 || request.confirmLossSeconds() > 86400) {
      throw new IllegalArgumentException(
          "confirmLossSeconds must be between 0 and 86400, got " + request.confirmLossSeconds());
    }
    requireTimeout("memberTimeoutSeconds", request.memberTimeoutSeconds());
    requireTimeout("apiServerTimeoutSeconds", request.apiServerTimeoutSeconds());
    String id = changeId(RecoverQuorumWorkflow.workflowId(request.cluster()), request.dryRun());
    if (!request.dryRun()) refuseIfRunning(id);
    checks.recoverQuorum(cluster, request);
    return start(
        id,
        RecoverQuorumWorkflow.class,
        options(RecoverQuorumWorkflow.TYPE, id, startedBy, request.cluster(), Map.of()),
        workflow -> WorkflowClient.start(workflow::recover, request));
  }

  /** A TLS reconfiguration; its certificates and hosts are checked by its preflight. */
  public Started startReconfigureTls(ReconfigureTlsRequest request, String startedBy) {
    inventory.get().cluster(request.cluster());
    boolean enable = ReconfigureTlsRequest.ENABLE.equals(request.mode());
    boolean rotateCa = ReconfigureTlsRequest.ROTATE_CA.equals(request.mode());
    if (!enable && !rotateCa && !ReconfigureTlsRequest.ROTATE_CERTIFICATES.equals(request.mode())) {
      throw new IllegalArgumentException(
          "mode must be %s, %s or %s, got '%s'"
              .formatted(
                  ReconfigureTlsRequest.ROTATE_CERTIFICATES,
                  ReconfigureTlsRequest.ENABLE,
                  ReconfigureTlsRequest.ROTATE_CA,
                  request.mode()));
    }
    if (enable != (request.enable() != null)) {
      throw new IllegalArgumentException(
          enable
              ? "mode enable needs \"enable\": {\"urls\":\"both\",\"caFile\":...,"
                  + " \"clientCertFile\":..., \"clientKeyFile\":...} (paths on the worker)"
              : "\"enable\" is only for mode enable");
    }
    if (rotateCa != (request.rotateCa() != null)) {
      throw new IllegalArgumentException(
          rotateCa
              ? "mode rotate-ca needs \"rotateCa\": {\"caFile\":..., \"clientCertFile\":...,"
                  + " \"clientKeyFile\":...} (the new CA and the worker's certificate from it, on"
                  + " the worker)"
              : "\"rotateCa\" is only for mode rotate-ca");
    }
    String source = request.fromCaKey() ? request.caKeyFile() : request.certificatesDir();
    boolean both =
        request.fromCaKey()
            && request.certificatesDir() != null
            && !request.certificatesDir().isBlank();
    if (both || source == null || !source.startsWith("/")) {
      throw new IllegalArgumentException(
          "give certificatesDir (an absolute directory on the worker) or caKeyFile (an absolute"
              + " path on the worker), one of them, got certificatesDir '%s', caKeyFile '%s'"
                  .formatted(request.certificatesDir(), request.caKeyFile()));
    }
    if (request.validityDays() < 0 || request.validityDays() > 3650) {
      throw new IllegalArgumentException(
          "validityDays must be 0 (365) to 3650, got " + request.validityDays());
    }
    requireTimeout("memberTimeoutSeconds", request.memberTimeoutSeconds());
    String id = changeId(ReconfigureTlsWorkflow.workflowId(request.cluster()), request.dryRun());
    if (!request.dryRun()) refuseIfRunning(id);
    return start(
        id,
        ReconfigureTlsWorkflow.class,
        options(ReconfigureTlsWorkflow.TYPE, id, startedBy, request.cluster(), Map.of()),
        workflow -> WorkflowClient.start(workflow::reconfigure, request));
  }

  /**
   * A backup now; it shares the scheduled backups' id, so two backups of a cluster never run at
   * once.
   */
  public Started startBackup(BackupClusterRequest request, String startedBy) {
    inventory.get().cluster(request.cluster());
    String id = BackupClusterWorkflow.workflowId(request.cluster());
    return start(
        id,
        BackupClusterWorkflow.class,
        options(BackupClusterWorkflow.TYPE, id, startedBy, request.cluster(), Map.of()),
        workflow -> WorkflowClient.start(workflow::backup, request));
  }

  /** The cluster's backup schedule (one per cluster); it runs until cancelled. */
  public Started startBackupSchedule(BackupScheduleRequest request, String startedBy) {
    inventory.get().cluster(request.cluster());
    if (request.intervalMinutes() < 0) {
      throw new IllegalArgumentException(
          "intervalMinutes must be 0 (the inventory's backup.intervalMinutes) or more, got "
              + request.intervalMinutes());
    }
    String id = BackupScheduleWorkflow.workflowId(request.cluster());
    return start(
        id,
        BackupScheduleWorkflow.class,
        options(BackupScheduleWorkflow.TYPE, id, startedBy, request.cluster(), Map.of()),
        workflow -> WorkflowClient.start(workflow::run, request));
  }

  /** A maintenance schedule, under its own id: one per cluster. */
  public Started startMaintenanceSchedule(MaintenanceScheduleRequest request, String startedBy) {
    inventory.get().cluster(request.cluster());
    if (request.intervalMinutes() < 0 || request.compactOlderThanMinutes() < 0) {
      throw new IllegalArgumentException(
          "intervalMinutes and compactOlderThanMinutes must be 0 or more, got %d and %d"
              .formatted(request.intervalMinutes(), request.compactOlderThanMinutes()));
    }
    if (request.compactOlderThanMinutes() > 0
        && request.compactOlderThanMinutes() < request.effectiveIntervalMinutes()) {
      throw new IllegalArgumentException(
          ("compactOlderThanMinutes (%d) must be at least intervalMinutes (%d): a revision is"
                  + " noted once a round")
              .formatted(request.compactOlderThanMinutes(), request.effectiveIntervalMinutes()));
    }
    if (request.compactOlderThanMinutes() > 0
        && request.compactOlderThanMinutes() < MaintenanceScheduleRequest.APISERVER_WINDOW_MINUTES
        && !request.forceCompaction()) {
      throw new IllegalArgumentException(
          ("compactOlderThanMinutes (%d) must be at least %d: kube-apiserver serves paginated"
                  + " LISTs and lagging watches from the last 5-10 minutes of history, and they"
                  + " fail with 410 Gone and relist at once when it is compacted; set"
                  + " forceCompaction to accept that")
              .formatted(
                  request.compactOlderThanMinutes(),
                  MaintenanceScheduleRequest.APISERVER_WINDOW_MINUTES));
    }
    String id = MaintenanceScheduleWorkflow.workflowId(request.cluster());
    return start(
        id,
        MaintenanceScheduleWorkflow.class,
        options(MaintenanceScheduleWorkflow.TYPE, id, startedBy, request.cluster(), Map.of()),
        workflow -> WorkflowClient.start(workflow::run, request));
  }

  /**
   * A fleet upgrade: the request checked and the selector (or the inventory's fleet) shown to
   * select clusters before anything starts; each cluster's own upgrade is checked by the fleet's
   * detection.
   */
  public Started startFleetUpgrade(FleetUpgradeRequest request, String startedBy) {
    List<String> problems = request.problems();
    if (!problems.isEmpty()) throw new IllegalArgumentException(String.join("; ", problems));
    Inventory current = inventory.get();
    String selector =
        request.selector().isBlank() ? current.fleets().get(request.fleet()) : request.selector();
    if (selector == null) {
      throw new IllegalArgumentException(
          "no fleet '%s' in the inventory (fleets: %s) and no selector given"
              .formatted(request.fleet(), new java.util.TreeSet<>(current.fleets().keySet())));
    }
    List<String> selected =
        FleetSelector.parse(selector).select(current).stream().map(ClusterSpec::name).toList();
    if (selected.isEmpty()) {
      throw new IllegalArgumentException(
          "selector '" + selector + "' matches none of the inventory's clusters");
    }
    String id = FleetUpgradeWorkflow.workflowId(request.fleet());
    return start(
        id,
        FleetUpgradeWorkflow.class,
        options(FleetUpgradeWorkflow.TYPE, id, startedBy, "", Map.of(FLEET, request.fleet())),
        workflow -> WorkflowClient.start(workflow::upgrade, request));
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

  private void optionalVersion(String cluster, String field, String value) {
    if (value != null && !value.isBlank() && !EtcdVersion.isVersion(value)) {
      throw new IllegalArgumentException(
          field + " must look like 3.4.23 (or be left out), got '" + value + "'");
    }
    if (value != null && !value.isBlank()) offered(cluster, field, value);
  }

  /**
   * Refuses a version the inventory's binary source does not offer, before anything starts. When
   * this process cannot read the source (an API host without the release cache), the runbook's own
   * preflight still refuses it.
   */
  private void offered(String cluster, String field, String version) {
    List<String> versions;
    try {
      versions = releases.get().availableVersions(new ClusterRef(cluster));
    } catch (RuntimeException e) {
      return;
    }
    if (!versions.isEmpty() && !versions.contains(version)) {
      throw new IllegalArgumentException(
          field
              + " "
              + version
              + " is not offered by the inventory's binary source"
              + " (releases): it offers "
              + versions
              + ". Fetch it into releases.localDir or add its SHA-256 to releases.sha256");
    }
  }

  private static void requireTimeout(String field, int seconds) {
    if (seconds < 0 || seconds > 86_400) {
      throw new IllegalArgumentException(
          field + " must be 0 (the runbook's default) to 86400 seconds, got " + seconds);
    }
  }

  /**
   * @param startedBy who started it (the API token's name, "slack:<user>" or "alertmanager"), kept
   *     in the memo
   */
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

  private <W> Started start(
      String id, Class<W> type, WorkflowOptions options, Function<W, WorkflowExecution> start) {
    W workflow = client.newWorkflowStub(type, options);
    try {
      WorkflowExecution execution = start.apply(workflow);
      return new Started(execution.getWorkflowId(), execution.getRunId());
    } catch (WorkflowExecutionAlreadyStarted e) {
      throw running(id, e.getExecution().getRunId());
    } catch (WorkflowServiceException e) {
      if (!searchAttributes.enabled()) throw e;
      throw SearchAttributesNotRegistered.of(e).orElseThrow(() -> e);
    }
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
