package io.etcdrunbooks.workflows.phases;

import io.etcdrunbooks.workflows.common.ApprovalGate;
import io.etcdrunbooks.workflows.common.ProgressTracker;
import io.etcdrunbooks.workflows.model.ClusterRef;

/**
 * What every phase of a run has at hand: the activities, the progress, the approval gate, the
 * cluster.
 */
public record RunContext(
    Activities activities, ProgressTracker progress, ApprovalGate approval, String cluster) {

  public ClusterRef ref() {
    return new ClusterRef(cluster);
  }
}
