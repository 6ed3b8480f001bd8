package io.etcdrunbooks.api;

import com.google.protobuf.Timestamp;
import io.etcdrunbooks.workflows.RunbookCatalog;
import io.etcdrunbooks.workflows.common.RunbookWorkflow;
import io.temporal.api.filter.v1.StartTimeFilter;
import io.temporal.api.workflow.v1.WorkflowExecutionInfo;
import io.temporal.api.workflowservice.v1.ListClosedWorkflowExecutionsRequest;
import io.temporal.api.workflowservice.v1.ListOpenWorkflowExecutionsRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionMetadata;
import io.temporal.client.WorkflowTargetOptions;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The running and recent runbooks of a cluster, read from Temporal's visibility (not from the API's
 * memory), whoever started them: matched by the cluster in their memo, or, for runbooks started
 * without it (the Temporal Web UI, the CLI), by the cluster of their input. Uses the list-open and
 * list-closed calls, which both a Temporal cluster and the embedded test server answer.
 */
@Singleton
public final class RunbookList {

  static final Duration RECENT = Duration.ofDays(7);
  private static final int PAGE = 200;

  /** Workflow types that are runbooks; other workflows in the namespace are not read. */
  private static final Set<String> RUNBOOK_TYPES =
      RunbookCatalog.all().stream().map(RunbookCatalog.Entry::runbook).collect(Collectors.toSet());

  private final WorkflowClient client;
  private final RunbookClusters clusters;

  public RunbookList(WorkflowClient client, RunbookClusters clusters) {
    this.client = client;
    this.clusters = clusters;
  }

  /** Running runbooks first, then those closed in the last 7 days; newest first within each. */
  public List<RunbookSummary> forCluster(String cluster) {
    String namespace = client.getOptions().getNamespace();
    Instant now = Instant.now();
    StartTimeFilter window =
        StartTimeFilter.newBuilder()
            .setEarliestTime(timestamp(now.minus(RECENT)))
            .setLatestTime(timestamp(now.plus(Duration.ofMinutes(5))))
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
    List<RunbookSummary> found = new ArrayList<>();
    Stream.concat(open.stream(), closed.stream())
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
   * The memo's cluster, which the API and the runbooks set; else the cluster of the run's input.
   */
  private String clusterOf(WorkflowExecutionMetadata run) {
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

  private static Timestamp timestamp(Instant at) {
    return Timestamp.newBuilder().setSeconds(at.getEpochSecond()).setNanos(at.getNano()).build();
  }

  /**
   * @param status RUNNING, COMPLETED, FAILED, CANCELED, TERMINATED, TIMED_OUT or CONTINUED_AS_NEW
   * @param member the member a ReplaceMember runbook replaces, else empty
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
      List<String> controls) {}
}
