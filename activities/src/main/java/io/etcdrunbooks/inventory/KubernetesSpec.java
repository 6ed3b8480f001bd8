package io.etcdrunbooks.inventory;

/**
 * How the worker reaches the Kubernetes API of the cluster this etcd serves: to keep kubeadm's
 * {@code kube-system/kubeadm-config} ConfigMap in step with the changes the runbooks make, and for
 * FleetUpgrade's node gate.
 *
 * @param kubeconfig a kubeconfig file on the worker's host (its current context: the server, the
 *     CA, a client certificate and key or a bearer token, inline or as files); a secret file, mode
 *     0600 or 0400
 * @param maxNotReadyNodes FleetUpgrade's gate fails a cluster whose NotReady nodes during its
 *     wave's bake exceed this many (default 0)
 */
public record KubernetesSpec(String kubeconfig, Integer maxNotReadyNodes) {

  public int effectiveMaxNotReadyNodes() {
    return maxNotReadyNodes == null ? 0 : maxNotReadyNodes;
  }
}
