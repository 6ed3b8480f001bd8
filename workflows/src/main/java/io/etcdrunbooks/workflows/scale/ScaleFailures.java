package io.etcdrunbooks.workflows.scale;

import io.etcdrunbooks.workflows.phases.ApiServerRollout;
import io.etcdrunbooks.workflows.phases.Compensation;
import io.etcdrunbooks.workflows.phases.FailureMapping;
import io.etcdrunbooks.workflows.phases.MemberJoin;
import io.etcdrunbooks.workflows.phases.PhaseFailed;

/**
 * How ScaleCluster fails once the phase runner has undone a step: a new member that did not join,
 * or a kube-apiserver that did not come back healthy; what was added or removed before stays.
 */
final class ScaleFailures implements FailureMapping<ScaleRun> {

  @Override
  public RuntimeException failure(ScaleRun run, PhaseFailed failed, Compensation.Outcome outcome) {
    if (failed.what() instanceof MemberJoin.NotJoined join)
      return ScaleSteps.joinFailed(run, join.member(), join.afterUndo());
    return ScaleSteps.apiServerFailed(run, ((ApiServerRollout.Unhealthy) failed.what()).stopped());
  }
}
