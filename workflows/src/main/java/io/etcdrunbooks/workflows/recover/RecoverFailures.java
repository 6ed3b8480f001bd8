package io.etcdrunbooks.workflows.recover;

import io.etcdrunbooks.workflows.phases.ApiServerRollout;
import io.etcdrunbooks.workflows.phases.Compensation;
import io.etcdrunbooks.workflows.phases.FailureMapping;
import io.etcdrunbooks.workflows.phases.MemberJoin;
import io.etcdrunbooks.workflows.phases.PhaseFailed;

/**
 * How RecoverQuorum fails once the phase runner has undone a step: a rebuilt member that did not
 * join, or a kube-apiserver that did not come back healthy on every member. Other failures are
 * {@link RecoverFailure}'s: nothing is put back.
 */
final class RecoverFailures implements FailureMapping<RecoverRun> {

  @Override
  public RuntimeException failure(
      RecoverRun run, PhaseFailed failed, Compensation.Outcome outcome) {
    if (failed.what() instanceof MemberJoin.NotJoined join)
      return RecoverSteps.joinFailed(run, join.member(), join.afterUndo());
    return RecoverSteps.apiServerFailed(run, (ApiServerRollout.Unhealthy) failed.what());
  }
}
