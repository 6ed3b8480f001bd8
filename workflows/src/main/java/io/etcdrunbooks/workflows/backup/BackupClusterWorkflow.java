package io.etcdrunbooks.workflows.backup;

import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Runbook;
import io.etcdrunbooks.workflows.model.BackupRecord;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.util.List;

/**
 * Takes a verified, encrypted backup of a cluster and applies the cluster's retention to its backup
 * directory. Returns the new backup's record.
 */
@WorkflowInterface
public interface BackupClusterWorkflow extends Runbook {

  String TYPE = "BackupCluster";

  /**
   * Failure types the runbook ends with ({@link FailureType}): its steps' own, unwrapped. An
   * off-site copy that cannot reach its host ends with that step's HostUnreachable, an upload to
   * the object store that keeps failing with ObjectStoreCopyFailed.
   */
  List<FailureType> FAILURES =
      List.of(
          FailureType.UnknownCluster,
          FailureType.BackupKeyUnusable,
          FailureType.BackupVerificationFailed,
          FailureType.BackupCorrupt,
          FailureType.MembersUnreachable,
          FailureType.InvalidRequest);

  @WorkflowMethod(name = TYPE)
  BackupRecord backup(BackupClusterRequest request);

  /** Workflow id that keeps two backups of one cluster from running at once. */
  static String workflowId(String cluster) {
    return "backup-" + cluster;
  }
}
