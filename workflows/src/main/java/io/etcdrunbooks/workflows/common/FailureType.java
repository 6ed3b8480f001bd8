package io.etcdrunbooks.workflows.common;

import io.temporal.failure.ApplicationFailure;

/**
 * Every way a runbook or one of its steps can end in failure. The constant's name is the {@link
 * ApplicationFailure} type the Temporal Web UI, the API and scripts see, so names never change once
 * shipped. docs/runbooks/phases.md lists which runbook ends with which.
 */
public enum FailureType {
  // Runbooks: refused before anything was touched
  /** An upgrade's preflight found a reason not to start; nothing was touched. */
  PreflightRefused,
  RollbackRefused,
  RestoreRefused,
  ReplaceRefused,
  MigrationRefused,
  TlsRefused,
  MaintenanceRefused,
  ScaleRefused,
  RecoverRefused,
  /** DowngradeCluster: a reason not to start (etcd's own downgrade validate among them). */
  DowngradeRefused,
  /** FleetUpgrade: the selector or fleet selects nothing, or the request is wrong. */
  FleetRefused,
  /** A changing runbook started under another id than its cluster's change id. */
  WrongWorkflowId,
  // Runbooks: failed after changing something
  UpgradeRolledBack,
  UpgradeHalted,
  UpgradeRollbackFailed,
  /**
   * The cluster is upgraded (its version moved, every other member healthy on the new version) but
   * one member did not come up well; nothing is put back and no restore is advised.
   */
  UpgradedMemberDegraded,
  RollbackFailed,
  /**
   * DowngradeCluster: a member did not come up on the older version; the downgrade was cancelled in
   * etcd and every member switched so far put back on the version it ran.
   */
  DowngradeRolledBack,
  /** DowngradeCluster: putting members back or cancelling failed too; the message names them. */
  DowngradeFailed,
  RestoreFailed,
  ReplacementJoinFailed,
  /** The migration failed before any kube-apiserver read v3; the cluster is back on v2. */
  MigrationRolledBack,
  /**
   * The migration failed where it cannot go back by itself (a kube-apiserver already served from
   * v3, or putting v2 back failed); the failure names the state and the next step.
   */
  MigrationFailed,
  ApiServerUpdateFailed,
  /**
   * A member did not serve its new certificate; every member rotated so far got its old one back.
   */
  TlsRolledBack,
  /** Putting the old certificates back failed too; the message names the member and the files. */
  TlsFailed,
  /**
   * Maintenance stopped after changing something (a compaction, a defragmented member); what it did
   * holds, nothing needs putting back; the message names the member and the next step.
   */
  MaintenanceFailed,
  /**
   * Scaling stopped after changing the membership: the members added or removed so far stay (each
   * recorded in the inventory), a new member that did not join was removed again; the message names
   * the members now and the next step.
   */
  ScaleFailed,
  /**
   * Recovering quorum stopped after changing something; the message names where (the survivor's
   * data dir copy, the members rebuilt so far) and the next step.
   */
  RecoverFailed,
  /**
   * The change to etcd is done, but kube-system/kubeadm-config could not be brought in step with it
   * through the Kubernetes API; the message names the field and value to set by hand.
   */
  KubeadmConfigNotUpdated,
  /** The runbook did its work but its final checks found problems. */
  /**
   * FleetUpgrade: as many clusters failed as its failure budget allows; nothing new was started,
   * the clusters running then finished.
   */
  FleetHalted,
  PostflightFailed,
  // Steps (activities), and steps the workflow stops itself
  /** The inventory has no such cluster. */
  UnknownCluster,
  /** The cluster has no such member. */
  UnknownMember,
  /** Stopping the member would cost quorum. */
  QuorumAtRisk,
  /** Members could not be reached (retryable: they may come back). */
  MembersUnreachable,
  /** No member sees a leader (retryable: an election may be under way). */
  NoLeader,
  /** Leadership did not reach the requested member in time. */
  LeaderNotMoved,
  /** A member did not become ready (healthy, expected version, caught up) within its timeout. */
  MemberNotReady,
  /** The cluster version did not reach the requested one within the timeout. */
  ClusterVersionNotReached,
  /** The storage version did not follow a downgrade's cluster version within the timeout. */
  StorageVersionNotReached,
  /** A snapshot failed its checks; nothing was kept. */
  BackupVerificationFailed,
  /** A kept backup no longer matches its metadata. */
  BackupCorrupt,
  /** The cluster's backup key is not named in the inventory, or its file cannot be used. */
  BackupKeyUnusable,
  /**
   * A restore drill's copy of a backup differed from what the backup recorded, or could not be
   * restored or started; the message names the backup, its target and what differed.
   */
  RestoreDrillFailed,
  /** Removing the member would leave the cluster without a voting member. */
  LastVotingMember,
  /** etcd refused a membership change (add, remove, promote) in a way no retry mends. */
  MembershipChangeRefused,
  /**
   * A node could not pull a static pod's etcd image (the registry or mirror lacks it, or is not
   * reached).
   */
  ImagePullFailed,
  /**
   * FleetUpgrade's gate: more nodes than the cluster's kubernetes.maxNotReadyNodes were NotReady
   * during a wave's bake, or the nodes could not be listed.
   */
  NodesNotReady,
  /** The request itself is wrong (for example a backup id that is not a plain file name). */
  InvalidRequest;

  public ApplicationFailure nonRetryable(String message) {
    return ApplicationFailure.newNonRetryableFailure(message, name());
  }

  public ApplicationFailure retryable(String message, Throwable cause) {
    return ApplicationFailure.newFailureWithCause(message, name(), cause);
  }

  /** Whether the failure (or its innermost application failure) is of this type. */
  public boolean isTypeOf(Throwable failure) {
    return name().equals(Failures.rootType(failure));
  }
}
