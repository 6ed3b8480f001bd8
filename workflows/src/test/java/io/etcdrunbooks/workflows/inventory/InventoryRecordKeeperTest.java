package io.etcdrunbooks.workflows.inventory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.workflows.common.RunbookPayloads;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowUpdateException;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The per-cluster record: a change made on the current version is kept, one made on an older
 * version is refused before it enters the history, concurrent changes each land once or are told to
 * read again, forget drops the record, and the record goes on across continue-as-new.
 */
class InventoryRecordKeeperTest {

  private static final String QUEUE = "inventory-records";
  private static final int CHANGES_PER_RUN = 5;

  private TestWorkflowEnvironment env;
  private WorkflowClient client;
  private String firstRun;

  @BeforeEach
  void start() {
    env =
        TestWorkflowEnvironment.newInstance(
            TestEnvironmentOptions.newBuilder()
                .setWorkflowClientOptions(RunbookPayloads.clientOptions().build())
                .build());
    Worker worker = env.newWorker(QUEUE);
    worker.registerWorkflowImplementationFactory(
        InventoryRecordWorkflow.class, () -> new InventoryRecordKeeper(CHANGES_PER_RUN));
    env.start();
    client = env.getWorkflowClient();
  }

  @AfterEach
  void stop() {
    env.close();
  }

  @Test
  void aChangeOnTheCurrentVersionIsKeptAndOneOnAnOlderVersionIsRefusedOutsideTheHistory() {
    InventoryRecordWorkflow record = started("prod");
    assertThat(record.record()).isEqualTo(InventoryRecord.none());

    assertThat(record.change(new RecordChange(0, "members: [a]", "run-1")))
        .isEqualTo(new InventoryRecord("members: [a]", 1));
    assertThatThrownBy(() -> record.change(new RecordChange(0, "members: [b]", "run-2")))
        .isInstanceOf(WorkflowUpdateException.class)
        .rootCause()
        .hasMessageContaining("changed since version 0 (now 1)");
    assertThat(record.record()).isEqualTo(new InventoryRecord("members: [a]", 1));
    assertThat(updatesInHistory("prod"))
        .as("the refused change is not in the history")
        .isEqualTo(1);

    assertThat(record.forget()).isEqualTo(new InventoryRecord("", 2));
    assertThat(record.record().isEmpty()).isTrue();
  }

  @Test
  void concurrentChangesEachLandOnceOrAreToldToReadAgainAndTheRecordOutlivesItsRuns()
      throws Exception {
    InventoryRecordWorkflow record = started("staging");
    ExecutorService writers = Executors.newFixedThreadPool(4);
    List<Future<Integer>> done = new ArrayList<>();
    for (int w = 0; w < 4; w++) {
      String writer = "w" + w;
      // each writer adds its own 5 entries by compare-and-swap, reading again after a refusal; as
      // the runbooks' changes, adding an entry that is there already changes nothing
      done.add(
          writers.submit(
              () -> {
                int refused = 0;
                for (int i = 0; i < 5; ) {
                  InventoryRecord now = record.record();
                  String entry = writer + "-" + i + ";";
                  if (now.content().contains(entry)) {
                    i++;
                    continue;
                  }
                  try {
                    record.change(new RecordChange(now.version(), now.content() + entry, writer));
                    i++;
                  } catch (WorkflowUpdateException e) {
                    refused++;
                  }
                }
                return refused;
              }));
    }
    for (Future<Integer> f : done) f.get();
    writers.shutdown();

    InventoryRecord last = record.record();
    assertThat(last.version()).isGreaterThanOrEqualTo(20);
    for (int w = 0; w < 4; w++)
      for (int i = 0; i < 5; i++) assertThat(last.content()).contains("w" + w + "-" + i + ";");
    assertThat(last.content().split(";")).hasSize(20);
    String runNow =
        client
            .newUntypedWorkflowStub(InventoryRecordWorkflow.workflowId("staging"))
            .describe()
            .getExecution()
            .getRunId();
    assertThat(runNow)
        .as("continued as new after %d changes", CHANGES_PER_RUN)
        .isNotEqualTo(firstRun);
  }

  private InventoryRecordWorkflow started(String cluster) {
    InventoryRecordWorkflow record =
        client.newWorkflowStub(
            InventoryRecordWorkflow.class,
            WorkflowOptions.newBuilder()
                .setTaskQueue(QUEUE)
                .setWorkflowId(InventoryRecordWorkflow.workflowId(cluster))
                .build());
    firstRun = WorkflowClient.start(record::keep, InventoryRecord.none()).getRunId();
    return client.newWorkflowStub(
        InventoryRecordWorkflow.class, InventoryRecordWorkflow.workflowId(cluster));
  }

  private long updatesInHistory(String cluster) {
    return client
        .fetchHistory(InventoryRecordWorkflow.workflowId(cluster))
        .getHistory()
        .getEventsList()
        .stream()
        .map(HistoryEvent::getEventType)
        .filter(t -> t == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED)
        .count();
  }
}
