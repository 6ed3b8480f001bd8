package io.etcdrunbooks.runtime.visibility;

import com.google.protobuf.ByteString;
import com.google.protobuf.Timestamp;
import io.etcdrunbooks.runtime.SearchAttributesConfig;
import io.etcdrunbooks.workflows.RunbookCatalog;
import io.etcdrunbooks.workflows.RunbookDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.filter.v1.StartTimeFilter;
import io.temporal.api.workflow.v1.WorkflowExecutionInfo;
import io.temporal.api.workflowservice.v1.ListOpenWorkflowExecutionsRequest;
import io.temporal.api.workflowservice.v1.ListWorkflowExecutionsRequest;
import io.temporal.api.workflowservice.v1.ListWorkflowExecutionsResponse;
import io.temporal.client.WorkflowClient;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runbooks in Temporal's visibility: by a list query when the search attributes are enabled and the
 * server answers it, else by the list-open call, which both a Temporal cluster and the embedded
 * test server answer. Shared by the API's lists and the worker's metrics.
 */
@Singleton
public final class RunbookVisibility {

  /** Workflow types that are runbooks; other workflows in the namespace are not read. */
  public static final Set<String> RUNBOOK_TYPES =
      RunbookCatalog.all().stream().map(RunbookDefinition::type).collect(Collectors.toSet());

  /** Enough for a week of a cluster's runbooks; more is not read. */
  public static final int MAX_LISTED = 2000;

  private static final int PAGE = 200;
  private static final Logger LOG = LoggerFactory.getLogger(RunbookVisibility.class);

  private final WorkflowClient client;
  private final SearchAttributesConfig searchAttributes;
  private final AtomicBoolean queryRefusalLogged = new AtomicBoolean();

  public RunbookVisibility(WorkflowClient client, SearchAttributesConfig searchAttributes) {
    this.client = client;
    this.searchAttributes = searchAttributes;
  }

  /** Every running runbook, whoever started it. */
  public List<WorkflowExecution> running() {
    return byQuery(runningQuery(RUNBOOK_TYPES)).orElseGet(this::open).stream()
        .filter(info -> RUNBOOK_TYPES.contains(info.getType().getName()))
        .map(WorkflowExecutionInfo::getExecution)
        .toList();
  }

  public static String runningQuery(Collection<String> types) {
    return "ExecutionStatus = 'Running' AND WorkflowType IN (%s)".formatted(typeList(types));
  }

  /** The types, sorted and quoted, for a query's {@code WorkflowType IN (...)}. */
  public static String typeList(Collection<String> types) {
    return types.stream().sorted().map(RunbookVisibility::quoted).collect(Collectors.joining(", "));
  }

  /**
   * With the search attributes enabled: the runs a visibility query finds. Empty when the server
   * cannot answer it (attributes not registered, or the embedded test server, which has no list
   * queries).
   */
  public Optional<List<WorkflowExecutionInfo>> byQuery(String query) {
    if (!searchAttributes.enabled()) return Optional.empty();
    var stub = client.getWorkflowServiceStubs().blockingStub();
    List<WorkflowExecutionInfo> runs = new ArrayList<>();
    ByteString page = ByteString.EMPTY;
    try {
      do {
        ListWorkflowExecutionsResponse answer =
            stub.listWorkflowExecutions(
                ListWorkflowExecutionsRequest.newBuilder()
                    .setNamespace(client.getOptions().getNamespace())
                    .setPageSize(PAGE)
                    .setQuery(query)
                    .setNextPageToken(page)
                    .build());
        runs.addAll(answer.getExecutionsList());
        page = answer.getNextPageToken();
      } while (!page.isEmpty() && runs.size() < MAX_LISTED);
      return Optional.of(runs);
    } catch (StatusRuntimeException e) {
      Status.Code code = e.getStatus().getCode();
      if (code != Status.Code.UNIMPLEMENTED && code != Status.Code.INVALID_ARGUMENT) throw e;
      if (queryRefusalLogged.compareAndSet(false, true)) {
        LOG.warn(
            "runbooks.search-attributes.enabled is set but Temporal does not answer the list query"
                + " ({}: {}); listing runbooks by the list-open and list-closed calls instead. Are"
                + " the search attributes registered in namespace {}? See docs/configuration.md.",
            code,
            e.getStatus().getDescription(),
            client.getOptions().getNamespace());
      }
      return Optional.empty();
    }
  }

  /** Every running workflow of the namespace, however long ago it started. */
  public List<WorkflowExecutionInfo> open() {
    var stub = client.getWorkflowServiceStubs().blockingStub();
    StartTimeFilter always =
        StartTimeFilter.newBuilder()
            .setEarliestTime(Timestamp.getDefaultInstance())
            .setLatestTime(timestamp(Instant.now().plus(Duration.ofMinutes(5))))
            .build();
    List<WorkflowExecutionInfo> runs = new ArrayList<>();
    ByteString page = ByteString.EMPTY;
    do {
      var answer =
          stub.listOpenWorkflowExecutions(
              ListOpenWorkflowExecutionsRequest.newBuilder()
                  .setNamespace(client.getOptions().getNamespace())
                  .setMaximumPageSize(PAGE)
                  .setStartTimeFilter(always)
                  .setNextPageToken(page)
                  .build());
      runs.addAll(answer.getExecutionsList());
      page = answer.getNextPageToken();
    } while (!page.isEmpty() && runs.size() < MAX_LISTED);
    return runs;
  }

  /** A query value quoted: a name with a quote or a backslash stays one value. */
  public static String quoted(String value) {
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'";
  }

  public static Timestamp timestamp(Instant at) {
    return Timestamp.newBuilder().setSeconds(at.getEpochSecond()).setNanos(at.getNano()).build();
  }
}
