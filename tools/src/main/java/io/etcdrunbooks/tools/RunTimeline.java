package io.etcdrunbooks.tools;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Where a finished runbook's time went, for the bench: each phase (the runbook's own metric), and
 * from its Temporal history each activity type's work and Temporal's own scheduling (scheduled to
 * started), and the workflow tasks.
 */
final class RunTimeline {

  /** One activity type: how many ran, their time on the worker, their time waiting in Temporal. */
  record ActivityTime(String type, int count, long workMillis, long queuedMillis) {}

  record Breakdown(
      Map<String, Long> phaseMillis, List<ActivityTime> activities, long[] workflowTasks) {

    void print(String indent) {
      StringBuilder phases = new StringBuilder();
      phaseMillis.forEach((p, ms) -> phases.append(' ').append(p).append('=').append(ms));
      System.out.printf("%sphases (ms):%s%n", indent, phases);
      System.out.printf(
          "%sTemporal's own time: %d workflow tasks queued %d ms and run %d ms; activities queued %d"
              + " ms; in all%n",
          indent,
          workflowTasks[2],
          workflowTasks[0],
          workflowTasks[1],
          activities.stream().mapToLong(ActivityTime::queuedMillis).sum());
      activities.stream()
          .sorted((a, b) -> Long.compare(b.workMillis(), a.workMillis()))
          .limit(12)
          .forEach(
              a ->
                  System.out.printf(
                      "%s  %-28s x%-3d work %6d ms, queued %4d ms%n",
                      indent, a.type(), a.count(), a.workMillis(), a.queuedMillis()));
    }
  }

  private RunTimeline() {}

  static Breakdown of(
      WorkflowClient client, String workflowId, MeterRegistry registry, String cluster) {
    return new Breakdown(
        phases(registry, cluster),
        activities(client, workflowId),
        workflowTasks(client, workflowId));
  }

  private static Map<String, Long> phases(MeterRegistry registry, String cluster) {
    Map<String, Long> phases = new LinkedHashMap<>();
    for (Timer timer :
        registry.find("etcd_runbooks_phase_duration").tag("etcd_cluster", cluster).timers()) {
      phases.merge(
          timer.getId().getTag("phase"), (long) timer.totalTime(TimeUnit.MILLISECONDS), Long::sum);
    }
    return phases;
  }

  private static List<HistoryEvent> history(WorkflowClient client, String workflowId) {
    return client.fetchHistory(workflowId).getHistory().getEventsList();
  }

  private static List<ActivityTime> activities(WorkflowClient client, String workflowId) {
    Map<Long, HistoryEvent> scheduled = new HashMap<>();
    Map<Long, HistoryEvent> started = new HashMap<>();
    Map<String, long[]> byType = new LinkedHashMap<>();
    for (HistoryEvent e : history(client, workflowId)) {
      if (e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) {
        scheduled.put(e.getEventId(), e);
      } else if (e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED) {
        started.put(e.getActivityTaskStartedEventAttributes().getScheduledEventId(), e);
      } else if (e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED) {
        long id = e.getActivityTaskCompletedEventAttributes().getScheduledEventId();
        HistoryEvent s = scheduled.get(id);
        HistoryEvent st = started.get(id);
        if (s == null || st == null) continue;
        String type = s.getActivityTaskScheduledEventAttributes().getActivityType().getName();
        long[] t = byType.computeIfAbsent(type, k -> new long[3]);
        t[0]++;
        t[1] += millis(e) - millis(st);
        t[2] += millis(st) - millis(s);
      }
    }
    List<ActivityTime> times = new ArrayList<>();
    byType.forEach((type, t) -> times.add(new ActivityTime(type, (int) t[0], t[1], t[2])));
    return times;
  }

  /** Scheduled to completed, summed: [queued, run, count]. */
  private static long[] workflowTasks(WorkflowClient client, String workflowId) {
    return workflowTasks(history(client, workflowId));
  }

  static long[] workflowTasks(List<HistoryEvent> history) {
    Map<Long, HistoryEvent> scheduled = new HashMap<>();
    Map<Long, HistoryEvent> started = new HashMap<>();
    long[] total = new long[3];
    for (HistoryEvent e : history) {
      if (e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED) {
        scheduled.put(e.getEventId(), e);
      } else if (e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED) {
        // keyed by the task it started: Temporal's Java test server leaves a completion's
        // startedEventId unset, its scheduledEventId is set by every server
        started.put(e.getWorkflowTaskStartedEventAttributes().getScheduledEventId(), e);
      } else if (e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) {
        long task = e.getWorkflowTaskCompletedEventAttributes().getScheduledEventId();
        HistoryEvent s = scheduled.get(task);
        HistoryEvent st = started.get(task);
        if (s == null || st == null) continue;
        total[0] += millis(st) - millis(s);
        total[1] += millis(e) - millis(st);
        total[2]++;
      }
    }
    return total;
  }

  private static long millis(HistoryEvent e) {
    return e.getEventTime().getSeconds() * 1000 + e.getEventTime().getNanos() / 1_000_000;
  }
}
