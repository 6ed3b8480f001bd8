package io.etcdrunbooks.workflows.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.workflows.upgrade.UpgradeClusterWorkflow;
import io.etcdrunbooks.workflows.upgrade.UpgradeClusterWorkflowImpl;
import io.etcdrunbooks.workflows.upgrade.UpgradeRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.common.converter.DataConverter;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Input typed by hand in the Web UI or the Temporal CLI: a misspelt field or a null where a yes/no
 * is expected fails the run at once, naming the field, and no step runs (the worker has no
 * activities at all here: any step would fail differently).
 */
class RunbookInputStrictnessTest {

  private static final String QUEUE = "strict-input";
  private TestWorkflowEnvironment env;
  private WorkflowClient client;

  @BeforeEach
  void startWorker() {
    env =
        TestWorkflowEnvironment.newInstance(
            TestEnvironmentOptions.newBuilder()
                .setWorkflowClientOptions(RunbookPayloads.clientOptions().build())
                .build());
    Worker worker = env.newWorker(QUEUE);
    worker.registerWorkflowImplementationFactory(
        UpgradeClusterWorkflow.class,
        UpgradeClusterWorkflowImpl::new,
        RunbookPayloads.workflowOptions());
    env.start();
    client = env.getWorkflowClient();
  }

  @AfterEach
  void stop() {
    env.close();
  }

  @Test
  void aMisspeltFieldFailsTheRunNamingItAndTheKnownFields() {
    Map<String, Object> input =
        new HashMap<>(Map.of("cluster", "sandbox", "targetVersion", "3.5.30"));
    input.put("dryrun", true);

    ApplicationFailure failure = failureOf(start("misspelt", input));

    assertThat(failure.getType()).isEqualTo(RunbookPayloads.InputRejected.class.getName());
    assertThat(failure.getOriginalMessage())
        .contains("'dryrun'", "UpgradeRequest", "dryRun", "nothing was done");
  }

  @Test
  void aNullForAYesOrNoFailsTheRunInsteadOfReadingFalse() {
    Map<String, Object> input =
        new HashMap<>(Map.of("cluster", "sandbox", "targetVersion", "3.5.30"));
    input.put("dryRun", null);

    ApplicationFailure failure = failureOf(start("null-dry-run", input));

    assertThat(failure.getOriginalMessage()).contains("'dryRun'", "null", "UpgradeRequest");
    assertThat(failure.getOriginalMessage()).doesNotContain("DeserializationConfig");
  }

  @Test
  void aStringForAYesOrNoFailsTheRun() {
    Map<String, Object> input =
        Map.of("cluster", "sandbox", "targetVersion", "3.5.30", "dryRun", "false");

    assertThat(failureOf(start("string-dry-run", input)).getOriginalMessage())
        .contains("'dryRun'", "UpgradeRequest");
  }

  @Test
  void fieldsLeftOutTakeTheirDefaultsAsDocumented() {
    // docs/temporal-cli.md and the README give inputs without the timeouts: they must still read
    DataConverter converter = RunbookPayloads.converter();
    UpgradeRequest read =
        converter.fromPayload(
            converter
                .toPayload(Map.of("cluster", "c", "targetVersion", "3.5.30", "dryRun", true))
                .orElseThrow(),
            UpgradeRequest.class,
            UpgradeRequest.class);
    assertThat(read)
        .isEqualTo(UpgradeRequest.to("c", "3.5.30", RunbookOptions.defaults().asDryRun()));
  }

  private WorkflowStub start(String id, Map<String, Object> input) {
    WorkflowStub stub =
        client.newUntypedWorkflowStub(
            UpgradeClusterWorkflow.TYPE,
            WorkflowOptions.newBuilder()
                .setWorkflowId(id)
                .setTaskQueue(QUEUE)
                .setWorkflowRunTimeout(Duration.ofMinutes(1))
                .build());
    stub.start(input);
    return stub;
  }

  private static ApplicationFailure failureOf(WorkflowStub run) {
    Throwable thrown = null;
    try {
      run.getResult(30, TimeUnit.SECONDS, Object.class);
    } catch (WorkflowFailedException e) {
      thrown = e.getCause();
    } catch (Exception e) {
      throw new AssertionError("the run did not fail on its input in 30 s: " + e, e);
    }
    assertThat(thrown).as("the run's failure").isInstanceOf(ApplicationFailure.class);
    return (ApplicationFailure) thrown;
  }

  @Test
  void theRejectionIsOneOfTheRunbooksFailWorkflowTypes() {
    assertThat(RunbookPayloads.workflowOptions().getFailWorkflowExceptionTypes())
        .contains(RunbookPayloads.InputRejected.class);
    assertThatThrownBy(
            () ->
                RunbookPayloads.converter()
                    .fromPayload(
                        RunbookPayloads.converter().toPayload(Map.of("x", 1)).orElseThrow(),
                        UpgradeRequest.class,
                        UpgradeRequest.class))
        .isInstanceOf(RunbookPayloads.InputRejected.class);
  }
}
