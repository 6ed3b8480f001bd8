package io.etcdrunbooks.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.api.testing.ApiHarness;
import io.etcdrunbooks.runtime.visibility.OpenRunbookPhases;
import io.etcdrunbooks.runtime.visibility.OpenRunbookPhases.PhaseEntered;
import io.etcdrunbooks.runtime.visibility.RunbookVisibility;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.Runbook;
import io.etcdrunbooks.workflows.upgrade.UpgradeClusterWorkflow;
import io.temporal.worker.WorkerFactoryOptions;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The phase of each running runbook and since when, as the stuck-phase and approval-wait alerts
 * read it, comes from Temporal and from the run's replayed state: a worker that takes a run over
 * after the one that ran it died reports it with the time the run entered its phase (a gauge set by
 * the workflow's code would be silent there: Temporal mutes a workflow's metrics while it replays).
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class OpenRunbookPhasesTest {

  @TempDir Path dir;

  @Test
  void aRunWaitingForApprovalIsReadWithItsPhaseAndSinceWhenFromItsReplayedHistory()
      throws Exception {
    // no workflow cache: every query replays the run's history, as on a worker that took it over
    // after the one that ran it died
    WorkerFactoryOptions replayEveryTime =
        WorkerFactoryOptions.newBuilder().setWorkflowCacheSize(0).build();
    try (ApiHarness api = ApiHarness.start(dir, Map.of(), replayEveryTime)) {
      OpenRunbookPhases phases = api.context.getBean(OpenRunbookPhases.class);
      assertThat(phases.read()).isEmpty();
      Instant before = Instant.now();
      api.startUpgradeAwaitingApproval("waits");
      awaitApprovalWait(api, "waits");

      Collection<PhaseEntered> read = phases.read();
      assertThat(read)
          .singleElement()
          .satisfies(
              p -> {
                assertThat(p.runbook()).isEqualTo(UpgradeClusterWorkflow.TYPE);
                assertThat(p.cluster()).isEqualTo("sandbox");
                assertThat(p.phase()).isEqualTo(Phase.AWAITING_APPROVAL);
                assertThat(Instant.ofEpochMilli(p.sinceMillis()))
                    .isBetween(before.minusSeconds(1), Instant.now());
              });
      long since = read.iterator().next().sinceMillis();

      // a reader of its own, as another worker's /metrics is: nothing kept from the first read
      OpenRunbookPhases elsewhere =
          new OpenRunbookPhases(api.client, api.context.getBean(RunbookVisibility.class));
      assertThat(elsewhere.read())
          .singleElement()
          .satisfies(
              p -> {
                assertThat(p.phase()).isEqualTo(Phase.AWAITING_APPROVAL);
                assertThat(p.sinceMillis())
                    .as("the time it entered, not the replay's")
                    .isEqualTo(since);
              });

      // ended: it leaves the read
      api.client.newUntypedWorkflowStub("waits").terminate("test over");
      assertThat(elsewhere.read()).isEmpty();
    }
  }

  private static void awaitApprovalWait(ApiHarness api, String workflowId)
      throws InterruptedException {
    Runbook run = api.client.newWorkflowStub(Runbook.class, workflowId);
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (run.progress().phase() != Phase.AWAITING_APPROVAL && System.nanoTime() < until)
      Thread.sleep(50);
    assertThat(run.progress().phase()).isEqualTo(Phase.AWAITING_APPROVAL);
  }
}
