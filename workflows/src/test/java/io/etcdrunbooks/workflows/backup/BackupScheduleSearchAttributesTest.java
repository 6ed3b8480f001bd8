package io.etcdrunbooks.workflows.backup;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.workflows.common.RunbookSearchAttributes;
import io.etcdrunbooks.workflows.testing.RecordingActivities;
import io.etcdrunbooks.workflows.testing.TestSearchAttributes;
import io.temporal.client.WorkflowOptions;
import io.temporal.common.SearchAttributes;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A schedule's BackupCluster child carries the schedule's search attributes, or none as it does.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class BackupScheduleSearchAttributesTest {

  private static final String QUEUE = "backup-schedule-search-attributes";

  private final TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance();

  @BeforeEach
  void start() {
    TestSearchAttributes.registerOn(env);
    Worker worker = env.newWorker(QUEUE);
    worker.registerWorkflowImplementationTypes(
        BackupScheduleWorkflowImpl.class, BackupClusterWorkflowImpl.class);
    new RecordingActivities(new FakeBackups(7)).registerOn(worker);
    env.start();
  }

  @AfterEach
  void close() {
    env.close();
  }

  @Test
  void aScheduledBackupCarriesItsOwnRunbookAndClusterAndTheSchedulesStartedBy() {
    runSchedule(
        RunbookSearchAttributes.atStart(BackupScheduleWorkflow.TYPE, "c", "ops-token", "fleet-a"));

    SearchAttributes child = attributes(BackupClusterWorkflow.workflowId("c"));
    assertThat(child.get(RunbookSearchAttributes.RUNBOOK)).isEqualTo(BackupClusterWorkflow.TYPE);
    assertThat(child.get(RunbookSearchAttributes.CLUSTER)).isEqualTo("c");
    assertThat(child.get(RunbookSearchAttributes.STARTED_BY)).isEqualTo("ops-token");
    assertThat(child.get(RunbookSearchAttributes.FLEET)).isEqualTo("fleet-a");
    assertThat(child.get(RunbookSearchAttributes.PHASE)).isEqualTo("DONE");
    assertThat(
            attributes(BackupScheduleWorkflow.workflowId("c")).get(RunbookSearchAttributes.PHASE))
        .isEqualTo("DONE");
  }

  @Test
  void aScheduleStartedWithoutTheAttributesStartsItsBackupsWithoutThem() {
    runSchedule(null);

    SearchAttributes child = attributes(BackupClusterWorkflow.workflowId("c"));
    RunbookSearchAttributes.ALL.forEach(key -> assertThat(child.containsKey(key)).isFalse());
  }

  private void runSchedule(SearchAttributes attributes) {
    WorkflowOptions.Builder options =
        WorkflowOptions.newBuilder()
            .setWorkflowId(BackupScheduleWorkflow.workflowId("c"))
            .setTaskQueue(QUEUE);
    if (attributes != null) options.setTypedSearchAttributes(attributes);
    env.getWorkflowClient()
        .newWorkflowStub(BackupScheduleWorkflow.class, options.build())
        .run(new BackupScheduleRequest("c", 60, 0, 1));
  }

  private SearchAttributes attributes(String workflowId) {
    return env.getWorkflowClient()
        .newUntypedWorkflowStub(workflowId)
        .describe()
        .getTypedSearchAttributes();
  }
}
