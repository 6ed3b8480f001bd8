package io.etcdrunbooks.worker;

import io.etcdrunbooks.testkit.Machines;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.IOException;
import java.nio.file.Path;

/**
 * What the runbooks on machines run through: the embedded Temporal, a worker in its own JVM reading
 * the machines' inventory, and a client. Closing it kills the worker and stops Temporal.
 */
final class MachinesWorker implements AutoCloseable {

  private final EmbeddedTemporal temporal;
  private final WorkflowServiceStubs stubs;
  private final String taskQueue;
  final Process worker;
  final Path log;
  final WorkflowClient client;

  private MachinesWorker(
      EmbeddedTemporal temporal,
      WorkflowServiceStubs stubs,
      String taskQueue,
      Process worker,
      Path log) {
    this.temporal = temporal;
    this.stubs = stubs;
    this.taskQueue = taskQueue;
    this.worker = worker;
    this.log = log;
    this.client = WorkflowClient.newInstance(stubs);
  }

  static MachinesWorker start(Machines machines, Path dir, String taskQueue) throws IOException {
    EmbeddedTemporal temporal = EmbeddedTemporal.start(Ports.free());
    WorkflowServiceStubs stubs =
        WorkflowServiceStubs.newServiceStubs(
            WorkflowServiceStubsOptions.newBuilder().setTarget(temporal.address()).build());
    Path log = dir.resolve("worker.log");
    Process worker = WorkerJvm.start(machines.inventoryFile(), temporal.address(), taskQueue, log);
    return new MachinesWorker(temporal, stubs, taskQueue, worker, log);
  }

  /** A runbook's stub under its workflow id, on this worker's task queue. */
  <T> T stub(Class<T> type, String workflowId) {
    return client.newWorkflowStub(
        type,
        WorkflowOptions.newBuilder().setWorkflowId(workflowId).setTaskQueue(taskQueue).build());
  }

  @Override
  public void close() {
    worker.destroyForcibly();
    stubs.shutdownNow();
    temporal.close();
  }
}
