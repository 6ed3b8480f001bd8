package io.etcdrunbooks.workflows.common;

import io.temporal.common.SearchAttributeKey;
import io.temporal.common.SearchAttributeUpdate;
import io.temporal.common.SearchAttributes;
import io.temporal.workflow.ChildWorkflowOptions;
import io.temporal.workflow.Workflow;
import java.util.ArrayList;
import java.util.List;

/**
 * The search attributes a runbook carries when the operator registered them in the namespace
 * (runbooks.search-attributes.enabled; see docs/configuration.md), for the Temporal Web UI's and
 * CLI's filters and the API's cluster list. Their values are not encrypted by the payload codec:
 * they hold names, never secrets.
 *
 * <p>A Temporal server fails the workflow task that upserts an attribute the namespace does not
 * know, so a runbook upserts only when its run was started with them ({@link #carried()}).
 */
public final class RunbookSearchAttributes {

  public static final SearchAttributeKey<String> CLUSTER =
      SearchAttributeKey.forKeyword("EtcdCluster");
  public static final SearchAttributeKey<String> RUNBOOK =
      SearchAttributeKey.forKeyword("EtcdRunbook");
  public static final SearchAttributeKey<String> PHASE =
      SearchAttributeKey.forKeyword("EtcdRunbookPhase");
  public static final SearchAttributeKey<String> STARTED_BY =
      SearchAttributeKey.forKeyword("EtcdStartedBy");
  public static final SearchAttributeKey<String> FLEET = SearchAttributeKey.forKeyword("EtcdFleet");

  /** The five, as an operator registers them (all Keyword). */
  public static final List<SearchAttributeKey<String>> ALL =
      List.of(CLUSTER, RUNBOOK, PHASE, STARTED_BY, FLEET);

  /**
   * {@code EtcdStartedBy} of a run started from the Temporal Web UI or CLI, not through the API.
   */
  public static final String STARTED_OUTSIDE_THE_API = "outside-the-api";

  private RunbookSearchAttributes() {}

  /**
   * A runbook's attributes at its start, in phase STARTING; empty cluster or fleet (a fleet's
   * cluster, a cluster's fleet) are left out.
   */
  public static SearchAttributes atStart(
      String runbook, String cluster, String startedBy, String fleet) {
    SearchAttributes.Builder attributes =
        SearchAttributes.newBuilder()
            .set(RUNBOOK, runbook)
            .set(PHASE, Phase.STARTING.name())
            .set(STARTED_BY, startedBy == null || startedBy.isBlank() ? "unknown" : startedBy);
    if (cluster != null && !cluster.isEmpty()) attributes.set(CLUSTER, cluster);
    if (fleet != null && !fleet.isEmpty()) attributes.set(FLEET, fleet);
    return attributes.build();
  }

  /** In workflow code: whether this run was started with the attributes. */
  static boolean carried() {
    return Workflow.getTypedSearchAttributes().containsKey(RUNBOOK);
  }

  /**
   * In workflow code, first thing in a run: a run started without the attributes (from the Temporal
   * Web UI or CLI) upserts them when the namespace has them, so that the UI's, the CLI's and the
   * API's filters find it as they find runs the API started. Whether it has them is recorded in the
   * history (a side effect), so a worker whose setting changed later replays it unchanged.
   *
   * @param cluster the runbook's cluster, or {@code fleet:<name>} for a fleet
   * @param registeredInNamespace the worker's runbooks.search-attributes.enabled
   */
  static void upsertAtStart(String runbook, String cluster, boolean registeredInNamespace) {
    if (carried() || !RunbookPatches.SEARCH_ATTRIBUTES_AT_START.applies()) return;
    if (!Workflow.sideEffect(Boolean.class, () -> registeredInNamespace)) return;
    List<SearchAttributeUpdate<?>> updates = new ArrayList<>();
    updates.add(RUNBOOK.valueSet(runbook));
    updates.add(PHASE.valueSet(Phase.STARTING.name()));
    updates.add(STARTED_BY.valueSet(STARTED_OUTSIDE_THE_API));
    if (cluster != null && cluster.startsWith("fleet:")) {
      updates.add(FLEET.valueSet(cluster.substring("fleet:".length())));
    } else if (cluster != null && !cluster.isEmpty()) {
      updates.add(CLUSTER.valueSet(cluster));
    }
    Workflow.upsertTypedSearchAttributes(updates.toArray(SearchAttributeUpdate<?>[]::new));
  }

  /** In workflow code: the phase, when this run carries the attributes. */
  static void upsertPhase(Phase phase) {
    if (carried()) Workflow.upsertTypedSearchAttributes(PHASE.valueSet(phase.name()));
  }

  /**
   * In workflow code: a child runbook's options with its own cluster and runbook and this run's
   * started-by and fleet, when this run carries the attributes; else unchanged. A run without them
   * (started before they existed, from the Web UI, or with them disabled) starts its children
   * without them, so its history replays with the same commands.
   */
  public static ChildWorkflowOptions.Builder inherited(
      ChildWorkflowOptions.Builder options, String childRunbook, String childCluster) {
    SearchAttributes parent = Workflow.getTypedSearchAttributes();
    if (!parent.containsKey(RUNBOOK)) return options;
    return options.setTypedSearchAttributes(
        atStart(childRunbook, childCluster, parent.get(STARTED_BY), parent.get(FLEET)));
  }
}
