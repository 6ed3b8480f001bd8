package io.etcdrunbooks.workflows.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.Runbook;
import io.temporal.client.WorkflowFailedException;
import io.temporal.testing.TestWorkflowEnvironment;
import java.time.Duration;

/** What the control-flow tests of every runbook wait for and catch. */
public final class RunbookWaits {

  private RunbookWaits() {}

  /**
   * Waits, bounded (10 s of the environment's time), until the runbook's progress shows the phase.
   */
  public static void awaitPhase(TestWorkflowEnvironment env, Runbook runbook, Phase phase) {
    for (int i = 0; i < 200 && runbook.progress().phase() != phase; i++)
      env.sleep(Duration.ofMillis(50));
    assertThat(runbook.progress().phase()).isEqualTo(phase);
  }

  /** The failure a runbook ended with; fails the test when it ended otherwise. */
  public static Throwable workflowFailure(Runnable run) {
    Throwable thrown = catchThrowable(run::run);
    assertThat(thrown).isInstanceOf(WorkflowFailedException.class);
    return thrown;
  }
}
