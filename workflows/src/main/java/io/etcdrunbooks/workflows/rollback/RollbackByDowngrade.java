package io.etcdrunbooks.workflows.rollback;

import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.RunbookIds;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.common.RunbookSearchAttributes;
import io.etcdrunbooks.workflows.downgrade.DowngradeClusterWorkflow;
import io.etcdrunbooks.workflows.downgrade.DowngradeRequest;
import io.etcdrunbooks.workflows.model.EtcdVersion;
import io.temporal.failure.ChildWorkflowFailure;
import io.temporal.workflow.ChildWorkflowOptions;
import io.temporal.workflow.Workflow;
import java.util.Optional;

/**
 * The cluster version has moved on 3.6 or later, one minor past the target: etcd's online downgrade
 * goes back without losing a write, so the DowngradeCluster runbook runs as a child (its own
 * checks, phases, compensation and progress) instead of a restore. On a dry run the child runs as a
 * dry run.
 */
final class RollbackByDowngrade {

  private RollbackByDowngrade() {}

  /**
   * Whether etcd can go from the cluster version to {@code toVersion} online: the cluster version
   * 3.6 or later and exactly one minor above the target, the target 3.5 or later.
   */
  static boolean possible(String clusterVersion, String toVersion) {
    EtcdVersion target = EtcdVersion.parse("toVersion", toVersion);
    Optional<EtcdVersion> cluster = EtcdVersion.find(clusterVersion);
    return cluster.isPresent()
        && !cluster.get().isBefore(new EtcdVersion(3, 6, 0))
        && cluster.get().major() == target.major()
        && cluster.get().minor() == target.minor() + 1;
  }

  static void plan(RollbackRun run) {
    run.ctx
        .progress()
        .message(
            ("the cluster version %s has moved past %s: etcd's online downgrade takes every member"
                    + " to %s without losing a write (DowngradeCluster runbook %s), no restore")
                .formatted(
                    run.state.clusterVersion(),
                    run.toVersion,
                    run.toVersion,
                    childId(run.cluster())));
  }

  static String firstChange(RollbackRun run) {
    return "etcd's online downgrade to %s (DowngradeCluster runbook %s; no restore, no write lost)"
        .formatted(run.toVersion, childId(run.cluster()));
  }

  static void run(RollbackRun run) {
    run.ctx.progress().stopIfCancelled(firstChange(run));
    DowngradeClusterWorkflow child =
        Workflow.newChildWorkflowStub(
            DowngradeClusterWorkflow.class,
            RunbookSearchAttributes.inherited(
                    ChildWorkflowOptions.newBuilder(), DowngradeClusterWorkflow.TYPE, run.cluster())
                .setWorkflowId(childId(run.cluster()))
                .build());
    DowngradeRequest downgrade =
        DowngradeRequest.to(
            run.cluster(),
            run.toVersion,
            RunbookOptions.defaults()
                .withDryRun(run.request.dryRun())
                .withMemberTimeoutSeconds(run.request.effectiveMemberTimeoutSeconds()));
    try {
      run.downgraded =
          run.ctx
              .progress()
              .record("online downgrade to " + run.toVersion, () -> child.downgrade(downgrade));
    } catch (ChildWorkflowFailure e) {
      throw FailureType.RollbackFailed.nonRetryable(
          "%s to %s through etcd's online downgrade failed: %s"
              .formatted(run.what(), run.toVersion, Failures.rootMessage(e)));
    }
    run.after = run.ctx.activities().etcd.discover(run.ctx.ref());
  }

  /**
   * The child runs while this rollback holds the cluster's change id, so it gets an id of its own.
   */
  static String childId(String cluster) {
    return RunbookIds.changing(cluster) + "-downgrade";
  }
}
