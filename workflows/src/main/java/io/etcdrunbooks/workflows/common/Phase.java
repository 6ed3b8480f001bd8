package io.etcdrunbooks.workflows.common;

/** Phases shared by the runbooks, in the order the runbooks go through them (RETENTION is the backup runbook's). */
public enum Phase {
  STARTING,
  DISCOVER,
  PREFLIGHT,
  PLAN,
  BACKUP,
  RETENTION,
  UPGRADE,
  ROLLBACK,
  POSTFLIGHT,
  DONE,
  FAILED
}
