package io.etcdrunbooks.workflows.restore;

import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Runbook;
import io.etcdrunbooks.workflows.common.RunbookIds;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.util.List;

/**
 * Disaster recovery: every kube-apiserver stopped, every member stopped with its data dir kept
 * aside, the backup restored on every member with a new cluster token, the members started, the
 * result checked against the backup, then the apiservers brought back one host at a time. Refuses
 * without {@code acknowledgeDataLoss}.
 */
@WorkflowInterface
public interface RestoreClusterWorkflow extends Runbook {

  String TYPE = "RestoreCluster";

  /** Failure types the runbook ends with ({@link FailureType}). */
  List<FailureType> FAILURES =
      List.of(FailureType.WrongWorkflowId, FailureType.RestoreRefused, FailureType.RestoreFailed);

  @WorkflowMethod(name = TYPE)
  RestoreResult restore(RestoreRequest request);

  /**
   * The cluster's change id ({@link RunbookIds#changing}): no restore while another change runs.
   */
  static String workflowId(String cluster) {
    return RunbookIds.changing(cluster);
  }
}
