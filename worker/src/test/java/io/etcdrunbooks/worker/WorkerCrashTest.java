package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.testkit.Sandbox;
import io.etcdrunbooks.testkit.SandboxSpec;
import io.etcdrunbooks.workflows.common.CompletedStep;
import io.etcdrunbooks.workflows.common.Progress;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.upgrade.UpgradeClusterWorkflow;
import io.etcdrunbooks.workflows.upgrade.UpgradeRequest;
import io.etcdrunbooks.workflows.upgrade.UpgradeResult;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The worker runs as its own JVM, as in production, against Temporal in this JVM (the embedded
 * server). It is killed with SIGKILL once the first member is on the new version; a second worker
 * JVM finishes the same workflow.
 */
@RealEtcd
@Timeout(value = 8, unit = TimeUnit.MINUTES)
class WorkerCrashTest {

  private static final String TASK_QUEUE = "etcd-runbooks-crash-test";

  @TempDir Path dir;

  @Test
  void aWorkerKilledMidUpgradeIsReplacedAndTheWorkflowFinishesWithoutNeedlessRestarts()
      throws Exception {
    try (Sandbox sandbox =
            Sandbox.create(
                new SandboxSpec(dir.resolve("sandbox"), "sandbox", 3, "3.4.23", Map.of()),
                SandboxRunbooks.releases());
        EmbeddedTemporal temporal = EmbeddedTemporal.start(WorkerJvm.freePort())) {
      WorkflowServiceStubs stubs =
          WorkflowServiceStubs.newServiceStubs(
              WorkflowServiceStubsOptions.newBuilder().setTarget(temporal.address()).build());
      WorkflowClient client = WorkflowClient.newInstance(stubs);
      try (ClusterProbe probe = new ClusterProbe(sandbox.cluster())) {
        probe.putMany("/registry/leases/l-", 50);
      }
      Process first = startWorker(sandbox, temporal, "worker-1");
      Process second = null;
      try {
        UpgradeClusterWorkflow workflow =
            client.newWorkflowStub(
                UpgradeClusterWorkflow.class,
                WorkflowOptions.newBuilder()
                    .setWorkflowId(UpgradeClusterWorkflow.workflowId("sandbox"))
                    .setTaskQueue(TASK_QUEUE)
                    .build());
        WorkflowClient.start(
            workflow::upgrade,
            UpgradeRequest.to(
                "sandbox", "3.5.16", RunbookOptions.defaults().withMemberTimeoutSeconds(60)));

        String firstMember = awaitFirstMemberUpgraded(workflow, first);
        first.destroyForcibly(); // SIGKILL on Linux: no shutdown hook, no graceful worker stop
        assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();
        long firstMemberPid = sandbox.pidOf(firstMember);
        assertThat(firstMemberPid).isPositive();

        second = startWorker(sandbox, temporal, "worker-2");
        UpgradeResult result;
        try {
          result =
              WorkflowStub.fromTyped(workflow).getResult(4, TimeUnit.MINUTES, UpgradeResult.class);
        } catch (java.util.concurrent.TimeoutException e) {
          throw new AssertionError(
              "the upgrade did not finish on worker-2; pending: "
                  + WorkflowStub.fromTyped(workflow)
                      .describe()
                      .getRawDescription()
                      .getPendingActivitiesList()
                  + "\nlast events: "
                  + lastEvents(client)
                  + "\nworker-2 log:\n"
                  + log("worker-2"));
        }

        assertThat(Files.readString(dir.resolve("worker-2.log")))
            .as("the worker says it turned sticky execution off on the shared test server")
            .contains("sticky execution OFF: Temporal is Temporal's Java test server");
        assertThat(result.memberVersions())
            .containsOnly(
                Map.entry("m1", "3.5.16"), Map.entry("m2", "3.5.16"), Map.entry("m3", "3.5.16"));
        assertThat(sandbox.pidOf(firstMember))
            .as("%s was not restarted again", firstMember)
            .isEqualTo(firstMemberPid);
        assertThat(result.restartedMembers().get("3.4.23 -> 3.5.16"))
            .containsExactlyInAnyOrder("m1", "m2", "m3");
        for (MemberSpec m : sandbox.cluster().members()) {
          String log = Files.readString(Path.of(m.serviceDir(), "etcd.log"));
          assertThat(WorkerJvm.count(log, "etcd Version: 3.4.23"))
              .as("starts of %s on 3.4.23", m.name())
              .isEqualTo(1);
          assertThat(WorkerJvm.count(log, "\"etcd-version\":\"3.5.16\""))
              .as("starts of %s on 3.5.16", m.name())
              .isEqualTo(1);
        }
      } finally {
        first.destroyForcibly();
        if (second != null) second.destroyForcibly();
        stubs.shutdownNow();
      }
    }
  }

  private String awaitFirstMemberUpgraded(UpgradeClusterWorkflow workflow, Process worker)
      throws InterruptedException {
    Instant deadline = Instant.now().plus(Duration.ofMinutes(3));
    while (Instant.now().isBefore(deadline)) {
      assertThat(worker.isAlive())
          .as("worker-1 is running; its log:%n%s", log("worker-1"))
          .isTrue();
      assertThat(WorkflowStub.fromTyped(workflow).describe().getStatus())
          .as("the upgrade is still running; worker-1 log:%n%s", log("worker-1"))
          .isEqualTo(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING);
      Progress progress;
      try {
        progress = workflow.progress();
      } catch (io.temporal.client.WorkflowException notYetAnswered) {
        continue; // the worker JVM is still starting: nobody answers queries yet
      }
      Optional<String> done =
          Optional.ofNullable(progress).map(Progress::completed).orElse(List.of()).stream()
              .filter(s -> s.name().endsWith(": ready on 3.5.16") && s.outcome().equals("done"))
              .map(CompletedStep::name)
              .map(n -> n.substring(0, n.indexOf(':')))
              .findFirst();
      if (done.isPresent()) return done.get();
      TimeUnit.MILLISECONDS.sleep(100);
    }
    throw new AssertionError(
        "no member reached 3.5.16 within 3 minutes; progress "
            + workflow.progress()
            + "; worker-1 log:\n"
            + log("worker-1"));
  }

  private Process startWorker(Sandbox sandbox, EmbeddedTemporal temporal, String name)
      throws Exception {
    return WorkerJvm.start(
        sandbox.inventoryFile(), temporal.address(), TASK_QUEUE, dir.resolve(name + ".log"));
  }

  private static String lastEvents(WorkflowClient client) {
    var events = client.fetchHistory(UpgradeClusterWorkflow.workflowId("sandbox")).getEvents();
    return events.subList(Math.max(0, events.size() - 8), events.size()).stream()
        .map(e -> e.getEventId() + " " + e.getEventType())
        .toList()
        .toString();
  }

  private String log(String worker) {
    return WorkerJvm.logTail(dir.resolve(worker + ".log"));
  }
}
