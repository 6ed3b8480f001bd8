package io.etcdrunbooks.workflows.testing;

import io.etcdrunbooks.workflows.activities.EtcdActivities;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.ConsistencyReport;
import io.etcdrunbooks.workflows.model.KeyspaceDigest;
import io.etcdrunbooks.workflows.model.KeyspaceHashes;
import io.etcdrunbooks.workflows.model.MemberStatus;

/**
 * {@link EtcdActivities} with every method throwing: a fake implements this and overrides only what
 * its runbook calls, so a call it does not expect fails naming the method. A fake that still
 * declares a stub of its own compiles too; a method added to the interface gets its default here.
 */
public interface UnsupportedEtcdActivities extends EtcdActivities {

  @Override
  default String awaitClusterVersion(AwaitClusterVersionRequest request) {
    throw new UnsupportedOperationException("EtcdActivities.awaitClusterVersion is not faked here");
  }

  @Override
  default MemberStatus awaitMemberReady(AwaitMemberRequest request) {
    throw new UnsupportedOperationException("EtcdActivities.awaitMemberReady is not faked here");
  }

  @Override
  default ConsistencyReport checkConsistency(ClusterRef cluster) {
    throw new UnsupportedOperationException("EtcdActivities.checkConsistency is not faked here");
  }

  @Override
  default ConsistencyReport checkConsistencyAt(ConsistencyRequest request) {
    throw new UnsupportedOperationException("EtcdActivities.checkConsistencyAt is not faked here");
  }

  @Override
  default ClusterState discover(ClusterRef cluster) {
    throw new UnsupportedOperationException("EtcdActivities.discover is not faked here");
  }

  @Override
  default KeyspaceDigest keyspaceDigest(KeyspaceDigestRequest request) {
    throw new UnsupportedOperationException("EtcdActivities.keyspaceDigest is not faked here");
  }

  @Override
  default KeyspaceHashes keyspaceHashes(KeyspaceDigestRequest request) {
    throw new UnsupportedOperationException("EtcdActivities.keyspaceHashes is not faked here");
  }

  @Override
  default void moveLeader(MoveLeaderRequest request) {
    throw new UnsupportedOperationException("EtcdActivities.moveLeader is not faked here");
  }
}
