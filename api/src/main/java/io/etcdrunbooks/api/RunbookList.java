package io.etcdrunbooks.api;

import io.etcdrunbooks.runtime.visibility.RunbookVisibility;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.RunbookSearchAttributes;
import io.etcdrunbooks.workflows.common.RunbookWorkflow;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.filter.v1.StartTimeFilter;
import io.temporal.api.workflow.v1.WorkflowExecutionInfo;
import io.temporal.api.workflowservice.v1.ListClosedWorkflowExecutionsRequest;
import io.temporal.api.workflowservice.v1.ListOpenWorkflowExecutionsRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionMetadata;
import io.temporal.client.WorkflowTargetOptions;
import io.temporal.common.SearchAttributeKey;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The running and recent runbooks of a cluster, read from Temporal's visibility (not from the API's
 * memory), whoever started them: matched by the cluster in their memo, or, for runbooks started
 * without it (the Temporal Web UI, the CLI), by the cluster of their input. With the search
 * attributes enabled, a visibility query on EtcdCluster reads only the cluster's runbooks (and
 * those without the attribute); else, or when the server cannot answer it, the list-open and
 * list-closed calls, which both a Temporal cluster and the embedded test server answer.
 */
@Singleton
public final class RunbookList {

  static final Duration RECENT = Duration.ofDays(7);
  private static final int PAGE = 200;
  private static final Set<String> RUNBOOK_TYPES = RunbookVisibility.RUNBOOK_TYPES;

  private final WorkflowClient client;
  private final RunbookClusters clusters;
  private final RunbookVisibility visibility;

  public RunbookList(
      WorkflowClient client, RunbookClusters clusters, RunbookVisibility visibility) {
    this.client = client;
    this.clusters = clusters;
    this.visibility = visibility;
  }

  /** Running runbooks first, then those closed in the last 7 days; newest first within each. */
  public List<RunbookSummary> forCluster(String cluster) {
    Instant now = Instant.now();
    List<WorkflowExecutionInfo> runs =
        visibility
            .byQuery(query(cluster, now.minus(RECENT), RUNBOOK_TYPES))
            .orElseGet(() -> byOpenAndClosed(now));
    List<RunbookSummary> found = new ArrayList<>();
    runs.stream()
        .filter(info -> RUNBOOK_TYPES.contains(info.getType().getName()))
        .map(this::withMemo)
        .filter(run -> cluster.equals(clusterOf(run)))
        .map(RunbookList::summary)
        .sorted(
            Comparator.comparing(RunbookSummary::running)
                .reversed()
                .thenComparing(RunbookSummary::startTime, Comparator.reverseOrder()))
        .forEach(found::add);
    return found;
  }

  /**
   * Running runbooks that may be waiting for an approval, whoever started them: with the search
   * attributes, those whose EtcdRunbookPhase says so or that carry none; else every running one.
   * Their progress says for sure.
   */
  public List<WorkflowExecution> mayAwaitApproval() {
    return visibility
        .byQuery(awaitingApprovalQuery(RUNBOOK_TYPES))
        .orElseGet(visibility::open)
        .stream()
        .filter(info -> RUNBOOK_TYPES.contains(info.getType().getName()))
        .map(WorkflowExecutionInfo::getExecution)
        .toList();
  }

  static String awaitingApprovalQuery(Collection<String> types) {
    return "ExecutionStatus = 'Running' AND WorkflowType IN (%s) AND (%s = %s OR %s IS NULL)"
        .formatted(
            RunbookVisibility.typeList(types),
            RunbookSearchAttributes.PHASE.getName(),
            RunbookVisibility.quoted(Phase.AWAITING_APPROVAL.name()),
            RunbookSearchAttributes.PHASE.getName());
  }

  /**
   * The visibility query of a cluster's recent runbooks, values quoted: a cluster name with a quote
   * or a backslash stays one value.
   */
  static String query(String cluster, Instant since, Collection<String> types) {
    return "StartTime > %s AND WorkflowType IN (%s) AND (%s = %s OR %s IS NULL)"
        .formatted(
            RunbookVisibility.quoted(
                DateTimeFormatter.ISO_INSTANT.format(since.truncatedTo(ChronoUnit.SECONDS))),
            RunbookVisibility.typeList(types),
            RunbookSearchAttributes.CLUSTER.getName(),
            RunbookVisibility.quoted(cluster),
            RunbookSearchAttributes.CLUSTER.getName());
  }

  /** Without list queries: every recent runbook of the namespace, the cluster sorted out later. */
  private List<WorkflowExecutionInfo> byOpenAndClosed(Instant now) {
    String namespace = client.getOptions().getNamespace();
    StartTimeFilter window =
        StartTimeFilter.newBuilder()
            .setEarliestTime(RunbookVisibility.timestamp(now.minus(RECENT)))
            .setLatestTime(RunbookVisibility.timestamp(now.plus(Duration.ofMinutes(5))))
            .build();
    var stub = client.getWorkflowServiceStubs().blockingStub();
    List<WorkflowExecutionInfo> open =
        stub.listOpenWorkflowExecutions(
                ListOpenWorkflowExecutionsRequest.newBuilder()
                    .setNamespace(namespace)
                    .setMaximumPageSize(PAGE)
                    .setStartTimeFilter(window)
                    .build())
            .getExecutionsList();
    List<WorkflowExecutionInfo> closed =
        stub.listClosedWorkflowExecutions(
                ListClosedWorkflowExecutionsRequest.newBuilder()
                    .setNamespace(namespace)
                    .setMaximumPageSize(PAGE)
                    .setStartTimeFilter(window)
                    .build())
            .getExecutionsList();
    return Stream.concat(open.stream(), closed.stream()).toList();
  }

  /**
   * The EtcdCluster search attribute or the memo's cluster, which the API and the runbooks set;
   * else the cluster of the run's input.
   */
  private String clusterOf(WorkflowExecutionMetadata run) {
    String attribute = attribute(run, RunbookSearchAttributes.CLUSTER);
    if (!attribute.isEmpty()) return attribute;
    String inMemo = memo(run, RunbookStarter.CLUSTER);
    if (!inMemo.isEmpty()) return inMemo;
    return clusters
        .clusterOf(run.getExecution().getWorkflowId(), run.getExecution().getRunId())
        .orElse("");
  }

  /**
   * Some visibility stores (the embedded test server's) list executions without their memo:
   * describe those.
   */
  private WorkflowExecutionMetadata withMemo(WorkflowExecutionInfo info) {
    if (info.hasMemo() && info.getMemo().getFieldsCount() > 0) {
      return new WorkflowExecutionMetadata(info, client.getOptions().getDataConverter());
    }
    return client
        .newUntypedWorkflowStub(
            WorkflowTargetOptions.newBuilder().setWorkflowExecution(info.getExecution()).build())
        .describe();
  }

  private static RunbookSummary summary(WorkflowExecutionMetadata run) {
    Object controls = run.getMemo(RunbookWorkflow.CONTROLS_MEMO, List.class);
    return new RunbookSummary(
        run.getExecution().getWorkflowId(),
        run.getExecution().getRunId(),
        run.getWorkflowType(),
        run.getStatus().name().replace("WORKFLOW_EXECUTION_STATUS_", ""),
        run.getStatus()
            == io.temporal.api.enums.v1.WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING,
        String.valueOf(run.getStartTime()),
        run.getCloseTime() == null ? null : String.valueOf(run.getCloseTime()),
        memo(run, RunbookStarter.STARTED_BY),
        memo(run, RunbookStarter.MEMBER),
        attribute(run, RunbookSearchAttributes.PHASE),
        controls instanceof List<?> list ? list.stream().map(String::valueOf).toList() : List.of());
  }

  private static String memo(WorkflowExecutionMetadata run, String key) {
    try {
      Object value = run.getMemo(key, String.class);
      return value == null ? "" : value.toString();
    } catch (RuntimeException e) {
      return ""; // a workflow started elsewhere (the Web UI) may carry other memo values
    }
  }

  private static String attribute(WorkflowExecutionMetadata run, SearchAttributeKey<String> key) {
    try {
      String value = run.getTypedSearchAttributes().get(key);
      return value == null ? "" : value;
    } catch (RuntimeException e) {
      return ""; // an attribute of that name but another type, registered by someone else
    }
  }

  /**
   * @param status RUNNING, COMPLETED, FAILED, CANCELED, TERMINATED, TIMED_OUT or CONTINUED_AS_NEW
   * @param member the member a ReplaceMember runbook replaces, else empty
   * @param phase its EtcdRunbookPhase search attribute, empty when it carries none
   * @param controls pause, resume and approve signals the runbook took, with who sent them
   */
  public record RunbookSummary(
      String workflowId,
      String runId,
      String type,
      String status,
      boolean running,
      String startTime,
      String closeTime,
      String startedBy,
      String member,
      String phase,
      List<String> controls) {}
}
