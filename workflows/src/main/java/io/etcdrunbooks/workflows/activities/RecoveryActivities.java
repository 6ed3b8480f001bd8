package io.etcdrunbooks.workflows.activities;

import io.etcdrunbooks.workflows.model.MemberRef;
import io.temporal.activity.ActivityInterface;

/** What recovering a cluster that lost quorum asks beyond the other runbooks' activities. */
@ActivityInterface(namePrefix = "Recovery")
public interface RecoveryActivities {

  /**
   * The revision of the member's own copy of the keyspace, read from that member alone (its status,
   * which needs no quorum). Fails, retryably, when it does not answer.
   */
  long memberRevision(MemberRef member);

  /**
   * The members through which a linearizable read succeeds now (etcd's own health check): any such
   * member shows the cluster still has quorum, whatever the worker can reach. Each member is given
   * a few seconds.
   */
  java.util.List<String> quorumReads(io.etcdrunbooks.workflows.model.ClusterRef cluster);

  /**
   * Copies the stopped member's data dir to {@code <dataDir>.before-recover-<recoveryId>} and
   * checks the copy file by file (SHA-256); returns the copy's path. Skips a copy already checked.
   * Fails, non-retryably, when the member still runs.
   */
  String copyDataDir(RecoveryMemberRequest request);

  record RecoveryMemberRequest(String cluster, String member, String recoveryId) {}
}
