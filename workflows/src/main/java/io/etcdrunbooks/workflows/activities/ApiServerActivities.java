package io.etcdrunbooks.workflows.activities;

import io.etcdrunbooks.workflows.model.ClusterRef;
import io.temporal.activity.ActivityInterface;
import java.util.List;

/**
 * kube-apiserver on a control-plane host, reached as production reaches it: its static-pod manifest
 * edited over SSH, its health endpoint polled.
 */
@ActivityInterface
public interface ApiServerActivities {

  /**
   * Points the apiserver at these etcd client URLs by rewriting only the {@code --etcd-servers}
   * line of its manifest (kubelet then restarts it). The previous manifest is kept beside it as a
   * hidden file, which kubelet ignores. A stopped apiserver's manifest ({@link #stopApiServer}) is
   * edited where it lies, so it starts on these servers. Returns false, touching nothing, when the
   * manifest already lists exactly these servers.
   */
  boolean setEtcdServers(SetEtcdServersRequest request);

  /**
   * Replaces one etcd client URL by another in the {@code --etcd-servers} line, keeping the order
   * of the others (an apiserver that lists only its local etcd, as kubeadm's stacked layout does,
   * is left alone when that is not the replaced one). The previous manifest is kept as with {@link
   * #setEtcdServers}. Returns false, touching nothing, when the manifest does not list {@code
   * oldUrl} (already replaced, or never listed).
   */
  boolean replaceEtcdServer(ReplaceEtcdServerRequest request);

  /** Names of the cluster's control-plane hosts, in inventory order. */
  List<String> controlPlaneHosts(ClusterRef cluster);

  /**
   * Puts back the manifest kept by the last {@link #setEtcdServers} on that host; no-op when there
   * is none.
   */
  void restoreManifest(ControlPlaneRef host);

  /**
   * Stops the apiserver by moving its manifest aside, to a hidden file beside it that kubelet
   * ignores. Returns false when it was stopped already. Fails when neither the manifest nor a
   * stopped copy is there.
   */
  boolean stopApiServer(ControlPlaneRef host);

  /**
   * Puts a manifest stopped by {@link #stopApiServer} back; returns false when there was none to
   * put back.
   */
  boolean startApiServer(ControlPlaneRef host);

  /**
   * Moves the kube-controller-manager and kube-scheduler static-pod manifests found beside the
   * host's kube-apiserver manifest out of kubelet's manifests directory, to hidden files beside
   * them that kubelet ignores, so that kubelet stops both. Reads first: a manifest already moved
   * out (a retry, or a crash before it was put back) is counted as moved. Returns the manifests
   * that are out now; empty when the host has neither.
   */
  List<String> moveControllersOut(ControlPlaneRef host);

  /**
   * Puts back every manifest {@link #moveControllersOut} moved out on the host (kubelet starts them
   * again); returns those it put back, empty when none was out.
   */
  List<String> putControllersBack(ControlPlaneRef host);

  /** Heartbeats until the apiserver's health endpoint no longer answers 200 (gone, or failing). */
  void awaitStopped(AwaitApiServerRequest request);

  /**
   * Heartbeats until the apiserver's health endpoint answers 200, or fails naming the host and what
   * it last saw.
   */
  void awaitHealthy(AwaitApiServerRequest request);

  /**
   * The {@code --storage-backend} of the apiserver's manifest, running or stopped ({@link
   * #stopApiServer}): "etcd2", "etcd3", or "" when the flag is absent (etcd3 since Kubernetes 1.6).
   */
  String storageBackend(ControlPlaneRef host);

  /**
   * The {@code --etcd-prefix} of the apiserver's manifest, running or stopped: "" when the flag is
   * absent (kube-apiserver then uses "/registry").
   */
  String etcdPrefix(ControlPlaneRef host);

  /**
   * Sets {@code --storage-backend} in the apiserver's manifest, the running one or the stopped
   * copy, whichever is there, keeping the previous manifest beside it as {@link #setEtcdServers}
   * does. Returns false, touching nothing, when it already says so. Fails when the manifest has no
   * such flag: the runbook never adds one.
   */
  boolean setStorageBackend(SetStorageBackendRequest request);

  /**
   * Points the apiserver at these etcd client URLs with its etcd client TLS in one edit of its
   * manifest ({@code --etcd-servers}, {@code --etcd-cafile}, {@code --etcd-certfile}, {@code
   * --etcd-keyfile}, added where missing; paths on the control-plane host), so kubelet restarts it
   * once; a null value leaves that flag as it is. The previous manifest is kept as with {@link
   * #setEtcdServers}. Returns false, touching nothing, when the manifest says so already.
   */
  boolean setEtcdClientTls(SetEtcdClientTlsRequest request);

  record SetEtcdClientTlsRequest(
      String cluster,
      String host,
      List<String> etcdServers,
      String caFile,
      String certFile,
      String keyFile) {}

  record ControlPlaneRef(String cluster, String host) {}

  record SetStorageBackendRequest(String cluster, String host, String backend) {}

  record SetEtcdServersRequest(String cluster, String host, List<String> etcdServers) {}

  record ReplaceEtcdServerRequest(String cluster, String host, String oldUrl, String newUrl) {}

  record AwaitApiServerRequest(String cluster, String host, int timeoutSeconds) {}
}
