package io.etcdrunbooks.workflows.common;

/**
 * An approval, as the {@code approveRun} update takes it.
 *
 * @param by who approves (the API passes the caller's token name; from the Temporal Web UI or CLI,
 *     your name)
 * @param planId the plan approved: {@link Progress#approvalPlan()} of the waiting runbook, so that
 *     an approval given for what was shown never lets another plan go on
 * @param token for a runbook whose approval needs a role ({@link Approver#ADMIN}): the API's or
 *     Slack's signature that it checked the role; null where none is needed
 */
public record ApproveRequest(String by, String planId, ApprovalToken token) {

  /** An approval that needs no role: from an operator, of the plan {@code planId}. */
  public static ApproveRequest of(String by, String planId) {
    return new ApproveRequest(by, planId, null);
  }
}
