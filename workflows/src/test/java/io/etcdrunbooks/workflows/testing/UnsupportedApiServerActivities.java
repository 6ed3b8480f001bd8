package io.etcdrunbooks.workflows.testing;

import io.etcdrunbooks.workflows.activities.ApiServerActivities;
import io.etcdrunbooks.workflows.model.ClusterRef;
import java.util.List;

/**
 * {@link ApiServerActivities} with every method throwing: a fake implements this and overrides only
 * what its runbook calls, so a call it does not expect fails naming the method. A fake that still
 * declares a stub of its own compiles too; a method added to the interface gets its default here.
 */
public interface UnsupportedApiServerActivities extends ApiServerActivities {

  @Override
  default List<String> moveControllersOut(ControlPlaneRef host) {
    throw new UnsupportedOperationException(
        "ApiServerActivities.moveControllersOut is not faked here");
  }

  @Override
  default List<String> putControllersBack(ControlPlaneRef host) {
    throw new UnsupportedOperationException(
        "ApiServerActivities.putControllersBack is not faked here");
  }

  @Override
  default void awaitHealthy(AwaitApiServerRequest request) {
    throw new UnsupportedOperationException("ApiServerActivities.awaitHealthy is not faked here");
  }

  @Override
  default void awaitStopped(AwaitApiServerRequest request) {
    throw new UnsupportedOperationException("ApiServerActivities.awaitStopped is not faked here");
  }

  @Override
  default List<String> controlPlaneHosts(ClusterRef cluster) {
    throw new UnsupportedOperationException(
        "ApiServerActivities.controlPlaneHosts is not faked here");
  }

  @Override
  default String etcdPrefix(ControlPlaneRef host) {
    throw new UnsupportedOperationException("ApiServerActivities.etcdPrefix is not faked here");
  }

  @Override
  default boolean replaceEtcdServer(ReplaceEtcdServerRequest request) {
    throw new UnsupportedOperationException(
        "ApiServerActivities.replaceEtcdServer is not faked here");
  }

  @Override
  default void restoreManifest(ControlPlaneRef host) {
    throw new UnsupportedOperationException(
        "ApiServerActivities.restoreManifest is not faked here");
  }

  @Override
  default boolean setEtcdClientTls(SetEtcdClientTlsRequest request) {
    throw new UnsupportedOperationException(
        "ApiServerActivities.setEtcdClientTls is not faked here");
  }

  @Override
  default boolean setEtcdServers(SetEtcdServersRequest request) {
    throw new UnsupportedOperationException("ApiServerActivities.setEtcdServers is not faked here");
  }

  @Override
  default boolean setStorageBackend(SetStorageBackendRequest request) {
    throw new UnsupportedOperationException(
        "ApiServerActivities.setStorageBackend is not faked here");
  }

  @Override
  default boolean startApiServer(ControlPlaneRef host) {
    throw new UnsupportedOperationException("ApiServerActivities.startApiServer is not faked here");
  }

  @Override
  default boolean stopApiServer(ControlPlaneRef host) {
    throw new UnsupportedOperationException("ApiServerActivities.stopApiServer is not faked here");
  }

  @Override
  default String storageBackend(ControlPlaneRef host) {
    throw new UnsupportedOperationException("ApiServerActivities.storageBackend is not faked here");
  }
}
