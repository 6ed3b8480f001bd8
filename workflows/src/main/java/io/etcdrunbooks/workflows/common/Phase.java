package io.etcdrunbooks.workflows.common;

/** Phases shared by the runbooks, in the order an upgrade goes through them. */
public enum Phase {
  STARTING,
  DISCOVER,
  PREFLIGHT,
  PLAN,
  BACKUP,
  UPGRADE,
  ROLLBACK,
  POSTFLIGHT,
  DONE,
  FAILED
}
