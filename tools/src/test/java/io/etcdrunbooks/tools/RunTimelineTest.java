package io.etcdrunbooks.tools;

import static org.assertj.core.api.Assertions.assertThat;

import io.temporal.api.enums.v1.EventType;
import io.temporal.common.WorkflowExecutionHistory;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class RunTimelineTest {

  @Test
  void everyWorkflowTaskOfAHistoryRecordedOnTheTestServerIsCounted() throws Exception {
    WorkflowExecutionHistory history =
        WorkflowExecutionHistory.fromJson(
            Files.readString(
                Path.of(
                    "../workflows/src/test/resources/histories/upgrade-3.3.25-to-3.5.30-restart-reads-reused.json")));
    long completed =
        history.getEvents().stream()
            .filter(e -> e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED)
            .count();

    long[] tasks = RunTimeline.workflowTasks(history.getEvents());

    assertThat(completed).isPositive();
    assertThat(tasks[2]).isEqualTo(completed);
    assertThat(tasks[0]).isNotNegative();
    assertThat(tasks[1]).isPositive();
  }
}
