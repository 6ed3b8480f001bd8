package io.etcdrunbooks.runtime.schedules;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.Inventory;
import io.etcdrunbooks.inventory.InventorySource;
import io.etcdrunbooks.runtime.RunbooksConfig;
import io.etcdrunbooks.runtime.SearchAttributesConfig;
import io.etcdrunbooks.workflows.common.RunbookSearchAttributes;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.enums.v1.ScheduleOverlapPolicy;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.schedules.Schedule;
import io.temporal.client.schedules.ScheduleActionStartWorkflow;
import io.temporal.client.schedules.ScheduleAlreadyRunningException;
import io.temporal.client.schedules.ScheduleClient;
import io.temporal.client.schedules.ScheduleClientOptions;
import io.temporal.client.schedules.ScheduleDescription;
import io.temporal.client.schedules.ScheduleHandle;
import io.temporal.client.schedules.ScheduleIntervalSpec;
import io.temporal.client.schedules.ScheduleListActionStartWorkflow;
import io.temporal.client.schedules.ScheduleListDescription;
import io.temporal.client.schedules.ScheduleOptions;
import io.temporal.client.schedules.SchedulePolicy;
import io.temporal.client.schedules.ScheduleSpec;
import io.temporal.client.schedules.ScheduleState;
import io.temporal.client.schedules.ScheduleUpdate;
import jakarta.inject.Singleton;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The clusters' Temporal Schedules ({@link ClusterSchedule}), one of each kind per cluster,
 * overlapping runs skipped, each visible and pausable in the Web UI. The worker keeps the
 * inventory's at its start ({@link #reconcile}: a backup and a RestoreDrill schedule per cluster);
 * the API makes one now ({@link #keep}: the inventory's backup schedule, or the maintenance
 * schedule a caller asks for). Run again it changes nothing; a schedule whose settings changed is
 * updated and keeps its paused state; a schedule we made whose cluster left the inventory (or opted
 * out) is deleted. Schedules we did not make (no {@link #MANAGED_BY} memo) are never touched, and a
 * cluster whose inventory entry is invalid keeps its schedules.
 */
@Singleton
public final class RunbookSchedules {

  /** Memo key of the schedules the worker made; its value is {@link #MANAGER}. */
  public static final String MANAGED_BY = "managedBy";

  public static final String MANAGER = "etcd-runbooks";
  static final String CLUSTER = "cluster";

  private static final Logger log = LoggerFactory.getLogger(RunbookSchedules.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final WorkflowClient client;
  private final String taskQueue;
  private final InventorySource inventory;
  private final boolean searchAttributes;

  public RunbookSchedules(
      WorkflowClient client,
      RunbooksConfig config,
      InventorySource inventory,
      SearchAttributesConfig searchAttributes) {
    this.client = client;
    this.taskQueue = config.taskQueue();
    this.inventory = inventory;
    this.searchAttributes = searchAttributes.enabled();
  }

  /**
   * One of the schedules we made, as Temporal lists it.
   *
   * @param runbook the workflow type it starts
   * @param nextAction when it next starts one; empty while paused
   */
  public record State(
      String id, String cluster, String runbook, boolean paused, Optional<Instant> nextAction) {}

  /** Every schedule we made, whichever worker or API made it; schedules of others are left out. */
  public List<State> ours() {
    try (var listed = scheduleClient().listSchedules()) {
      return listed
          .filter(RunbookSchedules::ours)
          .map(
              d ->
                  new State(
                      d.getScheduleId(),
                      clusterOf(d),
                      d.getSchedule().getAction() instanceof ScheduleListActionStartWorkflow start
                          ? start.getWorkflow()
                          : "",
                      d.getSchedule().getState().isPaused(),
                      d.getInfo().getNextActionTimes().stream().findFirst()))
          .toList();
    }
  }

  /** What {@link #keep} did. */
  public enum Applied {
    CREATED,
    UPDATED,
    UNCHANGED,
    /** a schedule of that id exists and was not made by etcd-runbooks: left as it is */
    NOT_OURS
  }

  /**
   * One schedule as {@link #keep} left it.
   *
   * @param nextActionTimes the next times it starts a run (none while paused)
   */
  public record Kept(
      Applied applied,
      String scheduleId,
      String cluster,
      String workflowType,
      long intervalMinutes,
      boolean paused,
      String note,
      List<Instant> nextActionTimes) {}

  /**
   * Makes one schedule as {@code wanted} says now: created, or updated with its paused state and
   * note kept, or left as it is when it already is (or is not ours).
   *
   * @param setBy who asked, in the note of a schedule the inventory does not keep
   */
  public Kept keep(ClusterSchedule wanted, String setBy) {
    ScheduleClient schedules = scheduleClient();
    Applied applied = apply(schedules, wanted, setBy);
    ScheduleDescription now = schedules.getHandle(wanted.id()).describe();
    ScheduleState state = now.getSchedule().getState();
    return new Kept(
        applied,
        wanted.id(),
        wanted.cluster(),
        wanted.workflowType(),
        wanted.every().toMinutes(),
        state.isPaused(),
        Objects.toString(state.getNote(), ""),
        state.isPaused() ? List.of() : now.getInfo().getNextActionTimes());
  }

  /** What one pass did, schedule ids in each list. */
  public record Outcome(
      List<String> created, List<String> updated, List<String> unchanged, List<String> deleted) {}

  private ScheduleClient scheduleClient() {
    return ScheduleClient.newInstance(
        client.getWorkflowServiceStubs(),
        ScheduleClientOptions.newBuilder()
            .setNamespace(client.getOptions().getNamespace())
            .setDataConverter(client.getOptions().getDataConverter())
            .setIdentity(client.getOptions().getIdentity())
            .build());
  }

  public Outcome reconcile() {
    ScheduleClient schedules = scheduleClient();
    Inventory current = inventory.get();
    Map<String, ClusterSchedule> wanted = new LinkedHashMap<>();
    Set<String> optedOut = new TreeSet<>();
    for (ClusterSpec spec : current.clusters().values()) {
      List<ClusterSchedule> forCluster = ClusterSchedule.of(spec);
      forCluster.forEach(s -> wanted.put(s.id(), s));
      optedOut.add(ClusterSchedule.BACKUP_PREFIX + spec.name());
      optedOut.add(ClusterSchedule.DRILL_PREFIX + spec.name());
    }
    optedOut.removeAll(wanted.keySet());
    List<String> created = new ArrayList<>();
    List<String> updated = new ArrayList<>();
    List<String> unchanged = new ArrayList<>();
    List<String> deleted = new ArrayList<>();
    for (ClusterSchedule s : wanted.values()) {
      switch (apply(schedules, s, MANAGER)) {
        case CREATED -> created.add(s.id());
        case UPDATED -> updated.add(s.id());
        case UNCHANGED, NOT_OURS -> unchanged.add(s.id());
      }
    }
    Set<String> stale = new TreeSet<>(optedOut);
    try (var listed = schedules.listSchedules()) {
      listed
          .filter(RunbookSchedules::ours)
          .filter(d -> !wanted.containsKey(d.getScheduleId()))
          // the API's (maintenance) go with their cluster only
          .filter(
              d ->
                  ClusterSchedule.fromInventory(d.getScheduleId())
                      || !current.clusters().containsKey(clusterOf(d)))
          .filter(d -> !current.invalidClusters().containsKey(clusterOf(d)))
          .forEach(d -> stale.add(d.getScheduleId()));
    }
    for (String id : stale) {
      if (deleteIfOurs(schedules.getHandle(id))) deleted.add(id);
    }
    Outcome outcome = new Outcome(created, updated, unchanged, deleted);
    log.info(
        "Temporal Schedules of the inventory: created {}, updated {}, unchanged {}, deleted {}",
        created,
        updated,
        unchanged,
        deleted);
    return outcome;
  }

  private Applied apply(ScheduleClient schedules, ClusterSchedule wanted, String setBy) {
    Schedule schedule = schedule(wanted, setBy);
    ScheduleHandle handle = schedules.getHandle(wanted.id());
    ScheduleDescription existing = describe(handle);
    if (existing == null) {
      try {
        schedules.createSchedule(
            wanted.id(),
            schedule,
            ScheduleOptions.newBuilder()
                .setMemo(Map.of(MANAGED_BY, MANAGER, CLUSTER, wanted.cluster()))
                .build());
        log.info(
            "schedule {} created: {} every {}", wanted.id(), wanted.workflowType(), wanted.every());
        return Applied.CREATED;
      } catch (ScheduleAlreadyRunningException e) {
        // another worker made it in the meantime
        existing = describe(handle);
        if (existing == null) throw e;
      }
    }
    if (!MANAGER.equals(memo(existing.getMemo(MANAGED_BY, String.class)))) {
      log.warn(
          "schedule {} exists and was not made by etcd-runbooks (no {} memo): left as it is",
          wanted.id(),
          MANAGED_BY);
      return Applied.NOT_OURS;
    }
    if (same(existing.getSchedule(), wanted)) return Applied.UNCHANGED;
    handle.update(
        input ->
            new ScheduleUpdate(
                Schedule.newBuilder(schedule)
                    // paused or not, with the operator's note, as the Web UI left it
                    .setState(input.getDescription().getSchedule().getState())
                    .build()));
    log.info(
        "schedule {} updated: {} every {}", wanted.id(), wanted.workflowType(), wanted.every());
    return Applied.UPDATED;
  }

  private Schedule schedule(ClusterSchedule wanted, String setBy) {
    Map<String, Object> memo = new LinkedHashMap<>();
    memo.put("startedBy", "schedule " + wanted.id());
    memo.put(CLUSTER, wanted.cluster());
    WorkflowOptions.Builder options =
        WorkflowOptions.newBuilder()
            .setWorkflowId(wanted.workflowId())
            .setTaskQueue(taskQueue)
            .setMemo(memo);
    if (searchAttributes) {
      options.setTypedSearchAttributes(
          RunbookSearchAttributes.atStart(
              wanted.workflowType(), wanted.cluster(), "schedule " + wanted.id(), ""));
    }
    return Schedule.newBuilder()
        .setAction(
            ScheduleActionStartWorkflow.newBuilder()
                .setWorkflowType(wanted.workflowType())
                .setArguments(wanted.request())
                .setOptions(options.build())
                .build())
        .setSpec(
            ScheduleSpec.newBuilder()
                .setIntervals(List.of(new ScheduleIntervalSpec(wanted.every())))
                .build())
        .setPolicy(
            SchedulePolicy.newBuilder()
                .setOverlap(ScheduleOverlapPolicy.SCHEDULE_OVERLAP_POLICY_SKIP)
                .build())
        .setState(
            ScheduleState.newBuilder()
                .setNote(
                    wanted.fromInventory()
                        ? "kept by etcd-runbooks from the inventory (backup settings of "
                            + wanted.cluster()
                            + ")"
                        : "kept by etcd-runbooks, set through its API by " + setBy)
                .build())
        .build();
  }

  /** The parts the inventory decides: runbook, request, queue, workflow id, interval, overlap. */
  private boolean same(Schedule existing, ClusterSchedule wanted) {
    if (!(existing.getAction() instanceof ScheduleActionStartWorkflow action)) return false;
    List<ScheduleIntervalSpec> intervals = existing.getSpec().getIntervals();
    try {
      return wanted.workflowType().equals(action.getWorkflowType())
          && wantedTaskQueueAndId(action.getOptions(), wanted)
          && intervals != null
          && intervals.size() == 1
          && wanted.every().equals(intervals.get(0).getEvery())
          && existing.getSpec().getCalendars().isEmpty()
          && existing.getSpec().getCronExpressions().isEmpty()
          && existing.getPolicy().getOverlap() == ScheduleOverlapPolicy.SCHEDULE_OVERLAP_POLICY_SKIP
          // read back as parsed JSON: valueToTree would keep a long 0 a LongNode, never equal
          // to the IntNode parsed from the same text
          && JSON.readTree(JSON.writeValueAsString(wanted.request()))
              .equals(action.getArguments().get(0, JsonNode.class));
    } catch (RuntimeException | JsonProcessingException e) {
      log.info(
          "schedule {}: its action cannot be read ({}); it is rewritten",
          wanted.id(),
          e.getMessage());
      return false;
    }
  }

  private boolean wantedTaskQueueAndId(WorkflowOptions options, ClusterSchedule wanted) {
    return Objects.equals(taskQueue, options.getTaskQueue())
        && Objects.equals(wanted.workflowId(), options.getWorkflowId());
  }

  private static ScheduleDescription describe(ScheduleHandle handle) {
    try {
      return handle.describe();
    } catch (RuntimeException e) {
      if (notFound(e)) return null;
      throw e;
    }
  }

  private static boolean deleteIfOurs(ScheduleHandle handle) {
    ScheduleDescription d = describe(handle);
    if (d == null || !MANAGER.equals(memo(d.getMemo(MANAGED_BY, String.class)))) return false;
    handle.delete();
    log.info(
        "schedule {} deleted: its cluster left the inventory or opted out (backup.schedule: false)",
        handle.getId());
    return true;
  }

  private static boolean ours(ScheduleListDescription d) {
    try {
      return MANAGER.equals(memo(d.getMemo(MANAGED_BY, String.class)));
    } catch (RuntimeException e) {
      return false;
    }
  }

  private static String clusterOf(ScheduleListDescription d) {
    try {
      return Objects.toString(memo(d.getMemo(CLUSTER, String.class)), "");
    } catch (RuntimeException e) {
      return "";
    }
  }

  private static String memo(Object value) {
    return value == null ? null : value.toString();
  }

  private static boolean notFound(Throwable e) {
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c instanceof StatusRuntimeException s && s.getStatus().getCode() == Status.Code.NOT_FOUND)
        return true;
    }
    return false;
  }
}
