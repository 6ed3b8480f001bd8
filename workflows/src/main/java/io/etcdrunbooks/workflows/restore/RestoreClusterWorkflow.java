package io.etcdrunbooks.workflows.restore;

import io.etcdrunbooks.workflows.common.Runbook;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * Disaster recovery: every kube-apiserver stopped, every member stopped with its data dir kept aside, the backup
 * restored on every member with a new cluster token, the members started, the result checked against the backup,
 * then the apiservers brought back one host at a time. Refuses without {@code acknowledgeDataLoss}.
 */
@WorkflowInterface
public interface RestoreClusterWorkflow extends Runbook {

  String TYPE = "RestoreCluster";

  String REFUSED = "RestoreRefused";
  String FAILED = "RestoreFailed";

  @WorkflowMethod(name = TYPE)
  RestoreResult restore(RestoreRequest request);

  /** The cluster's change id ({@link io.etcdrunbooks.workflows.common.RunbookIds#changing}): no restore while another change runs. */
  static String workflowId(String cluster) {
    return io.etcdrunbooks.workflows.common.RunbookIds.changing(cluster);
  }
}
