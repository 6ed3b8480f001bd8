package io.etcdrunbooks.workflows.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.workflows.testing.FakeCluster;
import io.etcdrunbooks.workflows.testing.RecordingActivities;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * MaintenanceSchedule on workflow time (skipped ahead): a round every interval, each a Maintenance
 * child, compacting only to revisions noted at least compactOlderThanMinutes before.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class MaintenanceScheduleControlFlowTest {

  private static final String QUEUE = "maintenance-schedule-control-flow";

  private final TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance();
  private final FakeCluster cluster =
      new FakeCluster("c", List.of("m1", "m2", "m3"), "3.5.16", "m1", List.of("3.5.16"))
          .revisionGrowsBy(100);
  private final FakeMaintenance databases =
      new FakeMaintenance(
          cluster,
          Map.of("m1", new long[] {64, 60}, "m2", new long[] {64, 60}, "m3", new long[] {64, 60}));

  @AfterEach
  void close() {
    env.close();
  }

  @Test
  void roundsComeEveryIntervalAndCompactOnlyHistoryOlderThanAsked() {
    Worker worker = env.newWorker(QUEUE);
    worker.registerWorkflowImplementationTypes(
        MaintenanceScheduleWorkflowImpl.class, MaintenanceWorkflowImpl.class);
    new RecordingActivities(databases, cluster).registerOn(worker);
    env.start();
    MaintenanceScheduleWorkflow schedule =
        env.getWorkflowClient()
            .newWorkflowStub(
                MaintenanceScheduleWorkflow.class,
                WorkflowOptions.newBuilder()
                    .setWorkflowId(MaintenanceScheduleWorkflow.workflowId("c"))
                    .setTaskQueue(QUEUE)
                    .build());

    MaintenanceScheduleResult result =
        schedule.run(MaintenanceScheduleRequest.every("c", 60, 120).stoppingAfter(4));

    assertThat(result.failures()).as("%s", result).isEmpty();
    assertThat(result.rounds()).hasSize(4);
    assertThat(result.rounds().get(0)).contains("compacted to (nothing)");
    assertThat(result.rounds().get(1)).contains("compacted to (nothing)");
    long third = compactedTo(result.rounds().get(2));
    long fourth = compactedTo(result.rounds().get(3));
    assertThat(third).isPositive().isLessThan(fourth);
    assertThat(databases.compactedTo()).isEqualTo(fourth);
    assertThat(Duration.between(at(result.rounds().get(0)), at(result.rounds().get(2))))
        .isEqualTo(Duration.ofMinutes(120));
  }

  private static long compactedTo(String round) {
    String after = round.substring(round.indexOf("compacted to ") + "compacted to ".length());
    return Long.parseLong(after.substring(0, after.indexOf(',')));
  }

  private static Instant at(String round) {
    return Instant.parse(round.substring(0, round.indexOf(": ")));
  }
}
