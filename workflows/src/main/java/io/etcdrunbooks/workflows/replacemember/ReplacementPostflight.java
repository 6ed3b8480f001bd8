package io.etcdrunbooks.workflows.replacemember;

import io.etcdrunbooks.workflows.phases.PostflightCheck;

/**
 * The POSTFLIGHT phase of a replacement: what every changing runbook checks, and etcd's member list
 * as long as the inventory's. Raft indexes and hashkv are compared once nothing else is wrong.
 */
final class ReplacementPostflight {

  private ReplacementPostflight() {}

  static void run(ReplaceRun run) {
    PostflightCheck.Found found =
        PostflightCheck.checkThenCompare(
            run.ctx,
            PostflightCheck.membersAsInventory(run.ctx, 0, members -> run.members = members));
    if (!found.problems().isEmpty())
      throw PostflightCheck.failed(
          "member replacement in cluster " + run.cluster(), found.problems());
  }
}
