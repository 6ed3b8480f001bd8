package io.etcdrunbooks.activities.etcd;

import io.temporal.failure.ApplicationFailure;

/** Failure types the etcd and backup activities report; the names become {@link ApplicationFailure} types. */
public enum Failure {
  /** The inventory has no such cluster. */
  UnknownCluster,
  /** The cluster has no such member. */
  UnknownMember,
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
  /** A snapshot failed its checks; nothing was kept. */
  BackupVerificationFailed,
  /** A kept backup no longer matches its metadata. */
  BackupCorrupt,
  /** The cluster's backup key is not named in the inventory, or its file cannot be used. */
  BackupKeyUnusable,
  /** Removing the member would leave the cluster without a voting member. */
  LastVotingMember,
  /** etcd refused a membership change (add, remove, promote) in a way no retry mends. */
  MembershipChangeRefused,
  /** The request itself is wrong (for example a backup id that is not a plain file name). */
  InvalidRequest;

  public ApplicationFailure nonRetryable(String message) {
    return ApplicationFailure.newNonRetryableFailure(message, name());
  }

  public ApplicationFailure retryable(String message, Throwable cause) {
    return ApplicationFailure.newFailureWithCause(message, name(), cause);
  }
}
