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
  /** FleetUpgrade: every selected cluster's upgrade run dry, to list the ones it would refuse. */
  DETECT,
  /** The upgrade's binaries put on every host, in parallel, before the first member stops. */
  STAGE,
  UPGRADE,
  /** FleetUpgrade: the waves, each cluster an UpgradeCluster child. */
  WAVES,
  /**
   * A changing runbook puts back what it changed after a step failed (the upgrade's members, say).
   */
  COMPENSATE,
  ROLLBACK,
  DOWNGRADE,
  REMOVE,
  JOIN,
  INVENTORY,
  STOP_APISERVERS,
  STOP_MEMBERS,
  RESTORE,
  /** The v2 -> v3 migration's offline {@code etcdctl migrate} on every member. */
  MIGRATE,
  START_MEMBERS,
  /** Leases for the migrated keys that had a TTL in v2. */
  LEASES,
  APISERVERS,
  /** Rotating the CA: every member, kube-apiserver and the worker trusts the old and new CA. */
  TRUST_BOTH,
  /** The TLS runbook's certificate files replaced on each member in turn. */
  CERTIFICATES,
  /** Rotating the CA: every member, kube-apiserver and the worker trusts the new CA alone. */
  TRUST_NEW,
  /** Enabling TLS: certificate files put on every host before any member uses them. */
  PLACE_CERTIFICATES,
  /** Enabling TLS: each member restarted serving http and https. */
  BOTH_SCHEMES,
  /** Enabling TLS: each member restarted serving clients on TLS only. */
  TLS_ONLY,
  /** Enabling TLS: each member's peer URL moved to https, then the member restarted on it. */
  PEER_TLS,
  /** MaintenanceSchedule: one round, a Maintenance runbook run as a child. */
  MAINTENANCE,
  /** Maintenance: the keyspace's history compacted to a revision. */
  COMPACT,
  /** Maintenance: members defragmented one at a time, the leader last. */
  DEFRAGMENT,
  /** Maintenance: a NOSPACE alarm disarmed once every database is under its quota. */
  ALARMS,
  /** Recovering quorum: every lost member fenced, so that it never serves the old membership. */
  FENCE,
  /**
   * Recovering quorum: the survivor made a cluster of one, rebuilt from its copy with its revision
   * raised (or, in older runs, restarted once with --force-new-cluster, then without).
   */
  FORCE_NEW_CLUSTER,
  /**
   * RestoreDrill: the backup restored into a scratch directory on the worker and served by a
   * throwaway etcd on a loopback port, measured, then stopped and removed.
   */
  DRILL,
  POSTFLIGHT,
  /** The migrated keys deleted from the v2 store, once every kube-apiserver reads v3. */
  CLEAR_V2,
  DONE,
  FAILED,
  /** Stopped at a safe point by a cancel request. */
  CANCELLED;

  /** DONE, FAILED or CANCELLED: the runbook is over. */
  public boolean ended() {
    return this == DONE || this == FAILED || this == CANCELLED;
  }
}
