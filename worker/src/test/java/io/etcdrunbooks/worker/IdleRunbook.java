package io.etcdrunbooks.worker;

import io.temporal.api.enums.v1.EventType;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Shows that a runbook waits for a signal, instead of sleeping in the hope that it would have moved
 * by then: running, no activity pending, no timer open and its last workflow task completed. Such a
 * runbook can only move when it is signalled or cancelled, so whatever the test checks next cannot
 * change on its own.
 */
final class IdleRunbook {

  private IdleRunbook() {}

  static void awaitWaitingForASignal(WorkflowClient client, String workflowId) throws Exception {
    Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
    String last = "";
    while (Instant.now().isBefore(deadline)) {
      var description = client.newUntypedWorkflowStub(workflowId).describe();
      List<HistoryEvent> events = client.fetchHistory(workflowId).getEvents();
      HistoryEvent lastEvent = lastWorkflowTaskEvent(events);
      boolean idle =
          description.getStatus() == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING
              && description.getRawDescription().getPendingActivitiesCount() == 0
              && lastEvent.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED
              && openTimers(events).isEmpty();
      if (idle) return;
      last =
          "status %s, %d activities pending, last event %s, open timers %s"
              .formatted(
                  description.getStatus(),
                  description.getRawDescription().getPendingActivitiesCount(),
                  lastEvent.getEventType(),
                  openTimers(events));
      Thread.sleep(100);
    }
    throw new AssertionError(
        workflowId + " did not come to wait for a signal within 30 s: " + last);
  }

  /**
   * The last workflow task's last event: the commands a completed task recorded (a marker, a search
   * attributes upsert) come after its WORKFLOW_TASK_COMPLETED and are passed over.
   */
  private static HistoryEvent lastWorkflowTaskEvent(List<HistoryEvent> events) {
    for (int i = events.size() - 1; i > 0; i--) {
      if (WORKFLOW_TASK_EVENTS.contains(events.get(i).getEventType())) return events.get(i);
    }
    return events.get(events.size() - 1);
  }

  private static final Set<EventType> WORKFLOW_TASK_EVENTS =
      Set.of(
          EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED,
          EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED,
          EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
          EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED,
          EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT);

  private static Set<String> openTimers(List<HistoryEvent> events) {
    Set<String> open = new HashSet<>();
    for (HistoryEvent e : events) {
      switch (e.getEventType()) {
        case EVENT_TYPE_TIMER_STARTED -> open.add(e.getTimerStartedEventAttributes().getTimerId());
        case EVENT_TYPE_TIMER_FIRED -> open.remove(e.getTimerFiredEventAttributes().getTimerId());
        case EVENT_TYPE_TIMER_CANCELED ->
            open.remove(e.getTimerCanceledEventAttributes().getTimerId());
        default -> {}
      }
    }
    return open;
  }
}
