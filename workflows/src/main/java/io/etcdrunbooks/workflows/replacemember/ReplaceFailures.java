package io.etcdrunbooks.workflows.replacemember;

import io.etcdrunbooks.workflows.phases.ApiServerRollout;
import io.etcdrunbooks.workflows.phases.Compensation;
import io.etcdrunbooks.workflows.phases.FailureMapping;
import io.etcdrunbooks.workflows.phases.MemberJoin;
import io.etcdrunbooks.workflows.phases.PhaseFailed;

/**
 * How ReplaceMember fails once the phase runner has undone a step: a new member that did not join
 * ({@link ReplacementJoin}), or a kube-apiserver that did not come back healthy ({@link
 * ReplacementApiServers}).
 */
final class ReplaceFailures implements FailureMapping<ReplaceRun> {

  @Override
  public RuntimeException failure(
      ReplaceRun run, PhaseFailed failed, Compensation.Outcome outcome) {
    if (failed.what() instanceof MemberJoin.NotJoined join)
      return ReplacementJoin.failure(run, join.afterUndo());
    return ReplacementApiServers.failure(
        run, ((ApiServerRollout.Unhealthy) failed.what()).stopped());
  }
}
