package io.etcdrunbooks.workflows.testing;

import io.etcdrunbooks.workflows.activities.KubernetesActivities;
import io.etcdrunbooks.workflows.common.FailureType;
import io.temporal.failure.ApplicationFailure;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A cluster's Kubernetes API as the workflows see it: kubeadm-config's etcd image and endpoints, as
 * set; by default the cluster has no kubeconfig, so every step is skipped, as in an inventory
 * without one.
 */
public final class FakeKubernetes implements KubernetesActivities {

  private final boolean reachable;
  private final String refusal;
  private final List<String> images = new CopyOnWriteArrayList<>();
  private final List<List<String>> endpoints = new CopyOnWriteArrayList<>();

  /** A cluster without a kubeconfig in the inventory. */
  public FakeKubernetes() {
    this(false);
  }

  public FakeKubernetes(boolean reachable) {
    this(reachable, null);
  }

  private FakeKubernetes(boolean reachable, String refusal) {
    this.reachable = reachable;
    this.refusal = refusal;
  }

  /** An apiserver that refuses every write of kubeadm-config (a kubeconfig without the rights). */
  public static FakeKubernetes refusing(String message) {
    return new FakeKubernetes(true, message);
  }

  /** The versions kubeadm-config's etcd image was set to, in order. */
  public List<String> images() {
    return List.copyOf(images);
  }

  /** The endpoint lists kubeadm-config was set to, in order. */
  public List<List<String>> endpoints() {
    return List.copyOf(endpoints);
  }

  @Override
  public KubeadmConfigChange setKubeadmEtcdImage(KubeadmEtcdImageRequest request) {
    if (!reachable) return skipped(request.cluster());
    refuseIfAsked();
    images.add(request.version());
    return new KubeadmConfigChange(
        KubeadmConfigChange.CHANGED, "etcd image -> etcd:" + request.version() + "-0");
  }

  @Override
  public KubeadmConfigChange setKubeadmEtcdEndpoints(KubeadmEtcdEndpointsRequest request) {
    if (!reachable) return skipped(request.cluster());
    refuseIfAsked();
    endpoints.add(List.copyOf(request.endpoints()));
    return new KubeadmConfigChange(
        KubeadmConfigChange.UNCHANGED, "stacked etcd: ClusterConfiguration lists no members");
  }

  @Override
  public NodeWatch watchNodes(WatchNodesRequest request) {
    return new NodeWatch(false, "cluster '" + request.cluster() + "': no kubeconfig");
  }

  private void refuseIfAsked() {
    if (refusal != null)
      throw ApplicationFailure.newNonRetryableFailure(
          refusal, FailureType.KubeadmConfigNotUpdated.name());
  }

  private static KubeadmConfigChange skipped(String cluster) {
    return new KubeadmConfigChange(
        KubeadmConfigChange.SKIPPED,
        "kubeadm-config of cluster '" + cluster + "' not touched: no kubernetes.kubeconfig");
  }
}
