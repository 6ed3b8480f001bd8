package io.etcdrunbooks.workflows.testing;

import io.etcdrunbooks.workflows.model.ClusterRef;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Control-plane hosts whose kube-apiserver manifests name a storage backend, for runbooks that only
 * read them (the upgrade's preflight); none by default.
 */
public final class FakeControlPlane implements UnsupportedApiServerActivities {

  private final Map<String, String> backends = new LinkedHashMap<>();

  /** A host whose kube-apiserver reads {@code backend} ("" for no --storage-backend flag). */
  public synchronized FakeControlPlane host(String name, String backend) {
    backends.put(name, backend);
    return this;
  }

  @Override
  public synchronized List<String> controlPlaneHosts(ClusterRef cluster) {
    return List.copyOf(backends.keySet());
  }

  @Override
  public synchronized String storageBackend(ControlPlaneRef host) {
    return backends.get(host.host());
  }

  @Override
  public String etcdPrefix(ControlPlaneRef host) {
    return "";
  }

  @Override
  public void awaitHealthy(AwaitApiServerRequest request) {
    // every kube-apiserver answers healthy: a read, like the others here
  }
}
