package io.etcdrunbooks.runtime.visibility;

import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.Progress;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.client.WorkflowClient;
import jakarta.inject.Singleton;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * The phase each running runbook is in and since when, read from Temporal (visibility, then each
 * run's progress query), whichever worker runs it. A gauge that a runbook's workflow code set would
 * be the gauge of the worker that ran its last step: Temporal silences a workflow's metrics while
 * it replays, so a worker that takes a run over after a crash would never report the phase the run
 * was in, and the worker that lost it would report it for ever.
 */
@Singleton
public final class OpenRunbookPhases {

  /** A phase entered: the oldest running runbook of that type and cluster in that phase. */
  public record PhaseEntered(String runbook, String cluster, Phase phase, long sinceMillis) {
    Key key() {
      return new Key(runbook, cluster, phase);
    }
  }

  private record Key(String runbook, String cluster, Phase phase) {}

  private final WorkflowClient client;
  private final RunbookVisibility runbooks;

  /** Each listed run's last phase read, kept while a query fails so the gauge does not flicker. */
  private Map<String, PhaseEntered> lastRead = Map.of();

  public OpenRunbookPhases(WorkflowClient client, RunbookVisibility runbooks) {
    this.client = client;
    this.runbooks = runbooks;
  }

  /**
   * One row per runbook type, cluster and phase that a running runbook is in. A run whose progress
   * cannot be read now (its worker busy) keeps its last row; a run that has ended, or that an older
   * worker runs (no phase time in its progress), has none.
   */
  public synchronized Collection<PhaseEntered> read() {
    Map<String, PhaseEntered> now = new HashMap<>();
    for (WorkflowExecution run : runbooks.running()) {
      String id = run.getWorkflowId() + "/" + run.getRunId();
      RunningProgress read = RunningProgress.of(client, run);
      if (read.ended()) continue;
      Progress progress = read.progress();
      if (progress == null) {
        if (lastRead.containsKey(id)) now.put(id, lastRead.get(id));
        continue;
      }
      if (progress.phase().ended() || progress.phaseSinceMillis() <= 0) continue;
      now.put(
          id,
          new PhaseEntered(
              progress.runbook(),
              progress.cluster() == null ? "" : progress.cluster(),
              progress.phase(),
              progress.phaseSinceMillis()));
    }
    lastRead = now;
    Map<Key, PhaseEntered> oldest = new HashMap<>();
    for (PhaseEntered entered : now.values())
      oldest.merge(entered.key(), entered, (a, b) -> a.sinceMillis() <= b.sinceMillis() ? a : b);
    return oldest.values();
  }
}
