package io.etcdrunbooks.workflows.tls;

import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Runbook;
import io.etcdrunbooks.workflows.common.RunbookIds;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.util.List;

/**
 * TLS of a running cluster, online and one member at a time. Built so far: {@code
 * rotate-certificates}, the members' server certificates replaced under the same CA before they
 * expire, each checked first and seen served in a real handshake before the next member; a member
 * that does not serve its new certificate gets the old one back, with every member rotated before
 * it.
 */
@WorkflowInterface
public interface ReconfigureTlsWorkflow extends Runbook {

  String TYPE = "ReconfigureTls";

  /** Failure types the runbook ends with ({@link FailureType}). */
  List<FailureType> FAILURES =
      List.of(
          FailureType.WrongWorkflowId,
          FailureType.TlsRefused,
          FailureType.TlsRolledBack,
          FailureType.TlsFailed,
          FailureType.PostflightFailed);

  @WorkflowMethod(name = TYPE)
  ReconfigureTlsResult reconfigure(ReconfigureTlsRequest request);

  /** The cluster's change id ({@link RunbookIds#changing}): one change of a cluster at a time. */
  static String workflowId(String cluster) {
    return RunbookIds.changing(cluster);
  }
}
