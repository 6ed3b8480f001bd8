package io.etcdrunbooks.worker;

import io.etcdrunbooks.activities.inventory.InventoryActivitiesImpl;
import io.etcdrunbooks.inventory.InventorySource;
import io.etcdrunbooks.inventory.TemporalInventoryRecords;
import io.etcdrunbooks.workflows.activities.InventoryActivities.RecordAdditionRequest;
import io.etcdrunbooks.workflows.common.RunbookPayloads;
import io.etcdrunbooks.workflows.inventory.InventoryRecordKeeper;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.worker.WorkerFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A worker process whose runbooks record inventory changes in Temporal: it polls the task queue
 * (answering the record workflows' updates and queries, as every worker does) and records {@code
 * count} new members of one cluster through {@link InventoryActivitiesImpl}, as runbooks adding
 * members do. It starts once the {@code go} file exists, so that two such processes change records
 * together, says "done" when it has, and exits once the {@code stop} file beside {@code go} exists.
 *
 * <p>Arguments: Temporal address, task queue, inventory file, cluster, count, go file, second octet
 * of the members' addresses.
 */
public final class InventoryRecordLoop {

  private InventoryRecordLoop() {}

  public static void main(String[] args) throws Exception {
    String taskQueue = args[1];
    Path file = Path.of(args[2]);
    String cluster = args[3];
    int count = Integer.parseInt(args[4]);
    Path go = Path.of(args[5]);
    int net = Integer.parseInt(args[6]);
    WorkflowClient client = client(args[0]);
    WorkerFactory factory = worker(client, taskQueue);
    InventoryActivitiesImpl activities =
        new InventoryActivitiesImpl(
            new InventorySource(
                file,
                new TemporalInventoryRecords(client, taskQueue),
                InventorySource.RECORD_MAX_AGE));
    System.out.println("ready");
    System.out.flush();
    while (!Files.exists(go)) Thread.onSpinWait();
    for (int i = 1; i <= count; i++) {
      String host = "10." + net + "." + (i / 200) + "." + (i % 200 + 10);
      activities.recordAddition(
          new RecordAdditionRequest(
              cluster,
              new MemberPlacement(
                  cluster + "-m" + i,
                  host,
                  22,
                  "http://" + host + ":2380",
                  "http://" + host + ":2379",
                  "/var/lib/etcd",
                  "/opt/etcd",
                  null)));
    }
    // its worker keeps serving until the test has read everything: a worker leaving drops the
    // task the server may have just handed it, which then waits for its timeout
    System.out.println("done");
    System.out.flush();
    Path stop = go.resolveSibling("stop");
    while (!Files.exists(stop)) Thread.sleep(10);
    factory.shutdownNow();
    System.exit(0);
  }

  static WorkflowClient client(String address) {
    return WorkflowClient.newInstance(
        WorkflowServiceStubs.newServiceStubs(
            WorkflowServiceStubsOptions.newBuilder().setTarget(address).build()),
        RunbookPayloads.clientOptions().build());
  }

  /**
   * A worker of the record workflow alone; not sticky, so that a record is served on by the other
   * workers at once when this one exits.
   */
  static WorkerFactory worker(WorkflowClient client, String taskQueue) {
    WorkerFactory factory = WorkerFactory.newInstance(client);
    factory
        .newWorker(taskQueue, RunbookWorker.options(false))
        .registerWorkflowImplementationTypes(InventoryRecordKeeper.class);
    factory.start();
    return factory;
  }
}
