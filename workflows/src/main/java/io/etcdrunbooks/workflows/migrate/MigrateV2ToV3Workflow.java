package io.etcdrunbooks.workflows.migrate;

import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Runbook;
import io.etcdrunbooks.workflows.common.RunbookIds;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.util.List;

/**
 * The v2 -> v3 store migration of a cluster whose Kubernetes data still lives in the v2 store
 * (Kubernetes 1.5 and earlier wrote it there): every kube-apiserver stopped, every member stopped
 * with a checked copy of its data dir, {@code etcdctl migrate} offline on each with its own
 * version's tool, the members started, leases for the keys that had a TTL, the v3 store compared
 * with the v2 store key by key, then the apiservers switched to {@code --storage-backend=etcd3} one
 * host at a time and the v2 keys cleared. Until the first apiserver reads v3 a failure puts the
 * cluster back as it was.
 */
@WorkflowInterface
public interface MigrateV2ToV3Workflow extends Runbook {

  String TYPE = "MigrateV2ToV3";

  /** Failure types the runbook ends with ({@link FailureType}). */
  List<FailureType> FAILURES =
      List.of(
          FailureType.WrongWorkflowId,
          FailureType.MigrationRefused,
          FailureType.MigrationRolledBack,
          FailureType.MigrationFailed);

  @WorkflowMethod(name = TYPE)
  MigrateResult migrate(MigrateRequest request);

  /** The cluster's change id ({@link RunbookIds#changing}): one change of a cluster at a time. */
  static String workflowId(String cluster) {
    return RunbookIds.changing(cluster);
  }
}
