package io.etcdrunbooks.workflows.common;

/**
 * Phases shared by the runbooks, in the order the runbooks go through them. WAITING is the backup
 * schedule's (until the next backup is due); RETENTION is the backup runbook's; REMOVE, JOIN and
 * INVENTORY the member replacement's; STOP_APISERVERS, STOP_MEMBERS, RESTORE and START_MEMBERS the
 * restore's; APISERVERS (kube-apiservers pointed at or brought back to the cluster) both of theirs.
 */
public enum Phase {
  STARTING,
  DISCOVER,
  PREFLIGHT,
  PLAN,
  WAITING,
  BACKUP,
  RETENTION,
  AWAITING_APPROVAL,
  UPGRADE,
  /**
   * A changing runbook puts back what it changed after a step failed (the upgrade's members, say).
   */
  COMPENSATE,
  ROLLBACK,
  REMOVE,
  JOIN,
  INVENTORY,
  STOP_APISERVERS,
  STOP_MEMBERS,
  RESTORE,
  START_MEMBERS,
  APISERVERS,
  POSTFLIGHT,
  DONE,
  FAILED,
  /** Stopped at a safe point by a cancel request. */
  CANCELLED
}
