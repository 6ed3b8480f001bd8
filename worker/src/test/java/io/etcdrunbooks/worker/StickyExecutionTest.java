package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.testkit.EmbeddedTemporal;
import io.etcdrunbooks.testkit.Ports;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.worker.WorkerFactory;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * On the {@code temporal} command's server (Temporal's Java test server, in another process), a
 * workflow whose worker died is taken on by another worker without any setting: the worker turns
 * sticky execution off by itself there. An explicit setting still wins.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StickyExecutionTest {

  private static final String QUEUE = "sticky-execution-test";

  @WorkflowInterface
  public interface WaitsForASignal {
    @WorkflowMethod
    String run();

    @SignalMethod
    void go();
  }

  public static final class WaitsForASignalImpl implements WaitsForASignal {
    private boolean go;

    @Override
    public String run() {
      Workflow.await(() -> go);
      return "done";
    }

    @Override
    public void go() {
      go = true;
    }
  }

  private EmbeddedTemporal server;
  private WorkflowServiceStubs service;

  @BeforeAll
  void startServer() throws Exception {
    server = EmbeddedTemporal.start(Ports.free());
    service =
        WorkflowServiceStubs.newServiceStubs(
            WorkflowServiceStubsOptions.newBuilder().setTarget(server.address()).build());
  }

  @AfterAll
  void stopServer() {
    if (service != null) service.shutdownNow();
    if (server != null) server.close();
  }

  @Test
  void aWorkflowWhoseWorkerDiedIsTakenOnByAnotherWorkerOnTheTestServer() throws Exception {
    WorkflowClient client = WorkflowClient.newInstance(service);
    WorkerFactory first = worker(client);
    WaitsForASignal workflow =
        client.newWorkflowStub(
            WaitsForASignal.class,
            WorkflowOptions.newBuilder().setTaskQueue(QUEUE).setWorkflowId("sticky").build());
    WorkflowClient.start(workflow::run);
    IdleRunbook.awaitWaitingForASignal(client, "sticky");

    first.shutdownNow(); // as a killed worker: its sticky queue is never polled again
    first.awaitTermination(10, TimeUnit.SECONDS);
    WorkerFactory second = worker(client);
    try {
      workflow.go();
      assertThat(WorkflowStub.fromTyped(workflow).getResult(30, TimeUnit.SECONDS, String.class))
          .isEqualTo("done");
    } finally {
      second.shutdownNow();
    }
  }

  @Test
  void anExplicitSettingWinsAndAnEmbeddedServerKeepsItOn() {
    assertThat(StickyExecution.decide("true", false, service)).isTrue();
    assertThat(StickyExecution.decide("false", false, service)).isFalse();
    assertThat(StickyExecution.decide("auto", true, service)).isTrue();
    assertThatThrownBy(() -> StickyExecution.decide("yes", false, service))
        .hasMessageContaining("must be auto, true or false, got 'yes'");
  }

  /** A worker as {@link RunbookWorker} makes it, with the setting left at its default. */
  private WorkerFactory worker(WorkflowClient client) {
    WorkerFactory factory = WorkerFactory.newInstance(client);
    factory
        .newWorker(
            QUEUE,
            RunbookWorker.options(StickyExecution.decide(StickyExecution.AUTO, false, service)))
        .registerWorkflowImplementationTypes(WaitsForASignalImpl.class);
    factory.start();
    return factory;
  }
}
