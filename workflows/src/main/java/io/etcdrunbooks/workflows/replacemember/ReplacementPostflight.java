package io.etcdrunbooks.workflows.replacemember;

import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.MemberStatus;
import io.etcdrunbooks.workflows.phases.PostflightCheck;
import java.util.List;

/**
 * The POSTFLIGHT phase of a replacement: what every changing runbook checks, and etcd's member list
 * as long as the inventory's. Raft indexes and hashkv are compared once nothing else is wrong.
 */
final class ReplacementPostflight {

  private ReplacementPostflight() {}

  static void run(ReplaceRun run) {
    PostflightCheck.Found found =
        PostflightCheck.checkThenCompare(run.ctx, state -> membershipProblems(run, state));
    if (!found.problems().isEmpty())
      throw PostflightCheck.failed(
          "member replacement in cluster " + run.cluster(), found.problems());
  }

  private static List<String> membershipProblems(ReplaceRun run, ClusterState state) {
    run.members =
        run.ctx
            .progress()
            .record(
                "etcd member list",
                () -> run.ctx.activities().membership.listMembers(run.ctx.ref()));
    if (run.members.size() == state.members().size()) return List.of();
    return List.of(
        "etcd has %s members %s, the inventory %s %s"
            .formatted(
                run.members.size(),
                ReplaceRun.names(run.members, null),
                state.members().size(),
                state.members().stream().map(MemberStatus::name).toList()));
  }
}
