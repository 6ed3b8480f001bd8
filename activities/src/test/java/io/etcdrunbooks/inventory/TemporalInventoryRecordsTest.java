package io.etcdrunbooks.inventory;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.workflows.common.RunbookPayloads;
import io.etcdrunbooks.workflows.inventory.InventoryRecord;
import io.etcdrunbooks.workflows.inventory.InventoryRecordKeeper;
import io.etcdrunbooks.workflows.inventory.InventoryRecordWorkflow;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The records as the worker reaches them: none until the first change, which starts the cluster's
 * workflow; a change on an older version writes nothing; a record whose workflow an operator
 * terminated counts as none, and the next change starts a new one.
 */
class TemporalInventoryRecordsTest {

  private static final String QUEUE = "records";

  private TestWorkflowEnvironment env;
  private TemporalInventoryRecords records;

  @BeforeEach
  void start() {
    env =
        TestWorkflowEnvironment.newInstance(
            TestEnvironmentOptions.newBuilder()
                .setWorkflowClientOptions(RunbookPayloads.clientOptions().build())
                .build());
    env.newWorker(QUEUE).registerWorkflowImplementationTypes(InventoryRecordKeeper.class);
    env.start();
    records = new TemporalInventoryRecords(env.getWorkflowClient(), QUEUE);
  }

  @AfterEach
  void stop() {
    env.close();
  }

  @Test
  void theFirstChangeStartsTheRecordAStaleOneWritesNothingATerminatedRecordCountsAsNone() {
    assertThat(records.read("prod")).isEqualTo(InventoryRecord.none());

    assertThat(records.replace("prod", 0, "members: []", "t"))
        .contains(new InventoryRecord("members: []", 1));
    assertThat(records.replace("prod", 0, "members: [x]", "t")).isEmpty();
    assertThat(records.read("prod")).isEqualTo(new InventoryRecord("members: []", 1));

    env.getWorkflowClient()
        .newUntypedWorkflowStub(InventoryRecordWorkflow.workflowId("prod"))
        .terminate("dropped by the operator");
    assertThat(records.read("prod")).isEqualTo(InventoryRecord.none());
    assertThat(records.replace("prod", 0, "members: [y]", "t"))
        .contains(new InventoryRecord("members: [y]", 1));
    assertThat(records.forgetCommand("prod"))
        .isEqualTo(
            "temporal workflow update execute --namespace default --workflow-id"
                + " etcd-runbooks-inventory-prod --name forget");
  }
}
