package io.etcdrunbooks.workflows.common;

import io.etcdrunbooks.workflows.recover.RecoverQuorumWorkflow;

/**
 * Who may approve a runbook: the rule the API and Slack enforce, and the one a waiting runbook's
 * progress names, so that the hint never points at a role that would be refused.
 */
public enum Approver {
  /** The approve route's own role. */
  OPERATOR("an operator"),
  /**
   * RecoverQuorum throws away what only the lost members had: an admin, and with {@code
   * runbooks.approvals.recover-quorum-second-person: true} not the one who started it.
   */
  ADMIN(
      "an admin; with runbooks.approvals.recover-quorum-second-person, not the admin who started"
          + " it");

  private final String who;

  Approver(String who) {
    this.who = who;
  }

  public static Approver forRunbook(String runbookType) {
    return RecoverQuorumWorkflow.TYPE.equals(runbookType) ? ADMIN : OPERATOR;
  }

  /**
   * Whether an approval must prove its role with a signed token ({@link ApprovalSigning}): the rule
   * holds on every path, the Web UI's and the CLI's too, not only in the API and Slack.
   */
  public boolean needsSignedToken() {
    return this == ADMIN;
  }

  /** The role an approval needs, as the API's roles name it. */
  public String role() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }

  /** Who approves, as the waiting runbook's progress says it. */
  public String who() {
    return who;
  }
}
