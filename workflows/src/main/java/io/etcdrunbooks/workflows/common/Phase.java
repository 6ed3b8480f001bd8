package io.etcdrunbooks.workflows.common;

/** Phases shared by the runbooks, in the order the runbooks go through them (RETENTION is the backup runbook's; REMOVE, JOIN, INVENTORY and APISERVERS the member replacement's). */
public enum Phase {
  STARTING,
  DISCOVER,
  PREFLIGHT,
  PLAN,
  BACKUP,
  RETENTION,
  AWAITING_APPROVAL,
  UPGRADE,
  ROLLBACK,
  REMOVE,
  JOIN,
  INVENTORY,
  APISERVERS,
  POSTFLIGHT,
  DONE,
  FAILED
}
