package io.etcdrunbooks.workflows.rollback;

import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.RunbookIds;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.common.RunbookSearchAttributes;
import io.etcdrunbooks.workflows.model.EtcdVersion;
import io.etcdrunbooks.workflows.model.MemberStatus;
import io.etcdrunbooks.workflows.restore.RestoreClusterWorkflow;
import io.etcdrunbooks.workflows.restore.RestoreRequest;
import io.temporal.failure.ChildWorkflowFailure;
import io.temporal.workflow.ChildWorkflowOptions;
import io.temporal.workflow.Workflow;

/**
 * The cluster version has moved: the RestoreCluster runbook, as a child, restores the pre-upgrade
 * backup with the old version's binaries on every member (its own checks, phases and progress), and
 * the rollback reports what it lost. On a dry run the child runs as a dry run too, naming the
 * backup it would restore.
 */
final class RollbackByRestore {

  private RollbackByRestore() {}

  static void plan(RollbackRun run) {
    run.members = run.state.members().stream().map(MemberStatus::name).toList();
    String backupId = run.request.backupId();
    run.ctx
        .progress()
        .message(
            "restore %s with etcd %s on %s (RestoreCluster runbook %s)"
                .formatted(
                    backupId == null || backupId.isBlank()
                        ? "the newest backup taken on " + minor(run)
                        : "backup " + backupId,
                    run.toVersion,
                    run.members,
                    childId(run.cluster())));
  }

  static String firstChange(RollbackRun run) {
    return "the restore with etcd " + run.toVersion;
  }

  static void run(RollbackRun run) {
    run.ctx.progress().stopIfCancelled(firstChange(run));
    RestoreClusterWorkflow child =
        Workflow.newChildWorkflowStub(
            RestoreClusterWorkflow.class,
            RunbookSearchAttributes.inherited(
                    ChildWorkflowOptions.newBuilder(), RestoreClusterWorkflow.TYPE, run.cluster())
                .setWorkflowId(childId(run.cluster()))
                .build());
    RestoreRequest restore =
        RestoreRequest.of(
                run.cluster(),
                run.request.backupId(),
                RunbookOptions.defaults()
                    .withDryRun(run.request.dryRun())
                    .withMemberTimeoutSeconds(run.request.effectiveMemberTimeoutSeconds()))
            .acknowledgingDataLoss()
            .withEtcdVersion(run.toVersion)
            .withTakenOnMinor(minor(run))
            .withRevisionsBackwardAcknowledged(run.request.acknowledgeRevisionsBackward());
    try {
      run.restored =
          run.ctx
              .progress()
              .record("restore with etcd " + run.toVersion, () -> child.restore(restore));
    } catch (ChildWorkflowFailure e) {
      throw FailureType.RollbackFailed.nonRetryable(
          "%s to %s through a restore failed: %s"
              .formatted(run.what(), run.toVersion, Failures.rootMessage(e)));
    }
    run.after = run.ctx.activities().etcd.discover(run.ctx.ref());
  }

  /**
   * The child runs while this rollback holds the cluster's change id, so it gets an id of its own.
   */
  static String childId(String cluster) {
    // before the change id, the child ran as "restore-<cluster>": histories recorded then replay
    // with it
    return !RollbackPatches.RESTORE_CHILD_ID.applies()
        ? "restore-" + cluster
        : RunbookIds.changing(cluster) + "-restore";
  }

  private static String minor(RollbackRun run) {
    return EtcdVersion.parse(run.toVersion).minorLabel();
  }
}
