package io.etcdrunbooks.workflows.testing;

import io.etcdrunbooks.workflows.activities.InventoryActivities;
import io.etcdrunbooks.workflows.model.ClientTls;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import java.util.List;

/**
 * {@link InventoryActivities} with every method throwing: a fake implements this and overrides only
 * what its runbook calls, so a call it does not expect fails naming the method. A fake that still
 * declares a stub of its own compiles too; a method added to the interface gets its default here.
 */
public interface UnsupportedInventoryActivities extends InventoryActivities {

  @Override
  default void checkWritable(ClusterRef cluster) {
    throw new UnsupportedOperationException("InventoryActivities.checkWritable is not faked here");
  }

  @Override
  default ClientTls clientTls(ClusterRef cluster) {
    throw new UnsupportedOperationException("InventoryActivities.clientTls is not faked here");
  }

  @Override
  default List<MemberPlacement> members(ClusterRef cluster) {
    throw new UnsupportedOperationException("InventoryActivities.members is not faked here");
  }

  @Override
  default boolean recordAddition(RecordAdditionRequest request) {
    throw new UnsupportedOperationException("InventoryActivities.recordAddition is not faked here");
  }

  @Override
  default boolean recordFenced(RecordFencedRequest request) {
    throw new UnsupportedOperationException("InventoryActivities.recordFenced is not faked here");
  }

  @Override
  default boolean recordRemoval(RecordRemovalRequest request) {
    throw new UnsupportedOperationException("InventoryActivities.recordRemoval is not faked here");
  }

  @Override
  default boolean recordReplacement(RecordReplacementRequest request) {
    throw new UnsupportedOperationException(
        "InventoryActivities.recordReplacement is not faked here");
  }

  @Override
  default boolean recordTls(RecordTlsRequest request) {
    throw new UnsupportedOperationException("InventoryActivities.recordTls is not faked here");
  }

  @Override
  default List<FleetCluster> selectClusters(SelectClustersRequest request) {
    throw new UnsupportedOperationException("InventoryActivities.selectClusters is not faked here");
  }
}
