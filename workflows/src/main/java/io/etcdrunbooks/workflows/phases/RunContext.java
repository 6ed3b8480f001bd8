package io.etcdrunbooks.workflows.phases;

import io.etcdrunbooks.workflows.common.ApprovalGate;
import io.etcdrunbooks.workflows.common.ProgressTracker;
import io.etcdrunbooks.workflows.model.ClusterRef;

/**
 * What every phase of a run has at hand: the activities, the progress, the approval gate, the
 * cluster, and the undos of the run's changes (run by the {@link PhaseRunner} when a phase fails).
 */
public record RunContext(
    Activities activities,
    ProgressTracker progress,
    ApprovalGate approval,
    String cluster,
    Compensation undos) {

  /** A run with nothing registered to undo yet. */
  public RunContext(
      Activities activities, ProgressTracker progress, ApprovalGate approval, String cluster) {
    this(activities, progress, approval, cluster, new Compensation());
  }

  public ClusterRef ref() {
    return new ClusterRef(cluster);
  }
}
