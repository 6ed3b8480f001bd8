package io.etcdrunbooks.workflows.activities;

import io.temporal.activity.ActivityInterface;
import java.util.List;

/**
 * The Kubernetes API of the cluster an etcd serves, reached with the kubeconfig the inventory names
 * for it ({@code kubernetes.kubeconfig}): kubeadm's {@code kube-system/kubeadm-config} ConfigMap,
 * kept in step with what the runbooks change so that the next {@code kubeadm join --control-plane}
 * or {@code kubeadm upgrade} does not undo it, and the nodes, for FleetUpgrade's gate. A cluster
 * without a kubeconfig is skipped, and the answer says what the operator must then do by hand.
 */
@ActivityInterface
public interface KubernetesActivities {

  /**
   * Sets ClusterConfiguration's {@code etcd.local.imageTag} to the tag of this version's image (and
   * {@code etcd.local.imageRepository} when the inventory's repository is another than kubeadm
   * would use), by a PUT with the read resourceVersion (a concurrent writer is read again). Skipped
   * for members that are not static pods, external etcd, and clusters without a kubeconfig or
   * without kubeadm-config; unchanged when it says so already.
   */
  KubeadmConfigChange setKubeadmEtcdImage(KubeadmEtcdImageRequest request);

  /**
   * Sets ClusterConfiguration's {@code etcd.external.endpoints} to these client URLs, when the
   * ClusterConfiguration uses external etcd; stacked etcd lists no members there (kubeadm reads
   * them from etcd), so it is left alone. Skipped and unchanged as {@link #setKubeadmEtcdImage}.
   */
  KubeadmConfigChange setKubeadmEtcdEndpoints(KubeadmEtcdEndpointsRequest request);

  /**
   * Watches the cluster's nodes ({@code GET /api/v1/nodes}) for {@code seconds}, heartbeating; a
   * node whose Ready condition is not True counts as NotReady. Fails (NodesNotReady) at the first
   * look that finds more than the inventory's {@code kubernetes.maxNotReadyNodes} (default 0),
   * naming the nodes and the cluster. With {@code seconds} 0, one look. Skipped for a cluster
   * without a kubeconfig.
   */
  NodeWatch watchNodes(WatchNodesRequest request);

  record KubeadmEtcdImageRequest(String cluster, String version) {}

  record KubeadmEtcdEndpointsRequest(String cluster, List<String> endpoints) {}

  record WatchNodesRequest(String cluster, int seconds) {}

  /**
   * What became of kubeadm-config.
   *
   * @param outcome {@link #CHANGED}, {@link #UNCHANGED} or {@link #SKIPPED}
   * @param detail a sentence: what changed from what, or why it was skipped and what the operator
   *     must then set by hand
   */
  record KubeadmConfigChange(String outcome, String detail) {
    public static final String CHANGED = "changed";
    public static final String UNCHANGED = "unchanged";
    public static final String SKIPPED = "skipped";

    public boolean skipped() {
      return SKIPPED.equals(outcome);
    }
  }

  /**
   * @param checked false when skipped (no kubeconfig)
   * @param detail what was seen ("3 nodes, at most 0 NotReady over 60 s") or why it was skipped
   */
  record NodeWatch(boolean checked, String detail) {}
}
