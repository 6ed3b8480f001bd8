package io.etcdrunbooks.workflows.upgrade;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.workflows.common.RunbookIds;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.testing.FakeCluster;
import io.etcdrunbooks.workflows.testing.FakeControlPlane;
import io.etcdrunbooks.workflows.testing.RecordingActivities;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.ActivityTaskScheduledEventAttributes;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The worker's wait heartbeat timeout (RunbookWorkflow#withWaitHeartbeatTimeout) caps the heartbeat
 * timeout of the waits an upgrade schedules, a member's restart among them, so that a dead worker's
 * wait is taken over sooner; steps that do not heartbeat, such as discovery, keep their own.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class WaitHeartbeatTimeoutTest {

  @Test
  void aMembersRestartTakesTheWorkersWaitHeartbeatTimeoutAndDiscoveryKeepsItsOwn() {
    TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance();
    try {
      Worker capped = env.newWorker("capped");
      capped.registerWorkflowImplementationFactory(
          UpgradeClusterWorkflow.class,
          () ->
              (UpgradeClusterWorkflow)
                  new UpgradeClusterWorkflowImpl().withWaitHeartbeatTimeout(Duration.ofSeconds(5)));
      recording().registerOn(capped);
      Worker shipped = env.newWorker("shipped");
      shipped.registerWorkflowImplementationTypes(UpgradeClusterWorkflowImpl.class);
      recording().registerOn(shipped);
      env.start();

      Map<String, Duration> cappedTimeouts = heartbeatTimeouts(env, "capped");
      assertThat(cappedTimeouts).containsEntry("RestartMember", Duration.ofSeconds(5));
      assertThat(cappedTimeouts).containsEntry("Discover", Duration.ofSeconds(20));
      Map<String, Duration> shippedTimeouts = heartbeatTimeouts(env, "shipped");
      assertThat(shippedTimeouts).containsEntry("RestartMember", Duration.ofSeconds(20));
      assertThat(shippedTimeouts).containsEntry("Discover", Duration.ofSeconds(20));
    } finally {
      env.close();
    }
  }

  private static RecordingActivities recording() {
    return new RecordingActivities(
        new FakeCluster(
            "c", List.of("m1", "m2", "m3"), "3.4.23", "m3", List.of("3.4.23", "3.5.16")),
        new FakeControlPlane());
  }

  /** Each activity type the upgrade on {@code taskQueue} scheduled, with its heartbeat timeout. */
  private static Map<String, Duration> heartbeatTimeouts(
      TestWorkflowEnvironment env, String taskQueue) {
    // the cluster's change id, one run after the other
    String id = RunbookIds.changing("c");
    UpgradeClusterWorkflow upgrade =
        env.getWorkflowClient()
            .newWorkflowStub(
                UpgradeClusterWorkflow.class,
                WorkflowOptions.newBuilder().setWorkflowId(id).setTaskQueue(taskQueue).build());
    upgrade.upgrade(
        UpgradeRequest.to("c", "3.5.16", RunbookOptions.defaults().withMemberTimeoutSeconds(60)));
    Map<String, Duration> timeouts = new TreeMap<>();
    env
        .getWorkflowClient()
        .fetchHistory(id, WorkflowStub.fromTyped(upgrade).getExecution().getRunId())
        .getEvents()
        .stream()
        .filter(e -> e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)
        .map(e -> e.getActivityTaskScheduledEventAttributes())
        .forEach(
            (ActivityTaskScheduledEventAttributes a) ->
                timeouts.put(
                    a.getActivityType().getName(),
                    Duration.ofSeconds(a.getHeartbeatTimeout().getSeconds())));
    return timeouts;
  }
}
