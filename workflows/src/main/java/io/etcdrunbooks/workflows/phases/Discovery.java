package io.etcdrunbooks.workflows.phases;

import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.ProgressTracker;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.temporal.failure.ActivityFailure;
import java.util.List;

/** The DISCOVER phase every runbook opens with: the cluster as its members report it, or a refusal naming why not. */
public final class Discovery {

  private Discovery() {}

  /**
   * @param what the runbook and its object, for the refusal ("upgrade of prod-1")
   * @param refused the runbook's refusal type
   */
  public static ClusterState discoverOrRefuse(Activities activities, ProgressTracker progress, String cluster, String what,
      FailureType refused) {
    try {
      return progress.record("discover", () -> activities.etcd.discover(new ClusterRef(cluster)));
    } catch (ActivityFailure e) {
      if (FailureType.UnknownCluster.isTypeOf(e)) throw Refusal.of(what, List.of(Failures.rootMessage(e)), refused);
      throw e;
    }
  }
}
