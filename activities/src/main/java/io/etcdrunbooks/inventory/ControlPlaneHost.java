package io.etcdrunbooks.inventory;

/**
 * A host running kube-apiserver as a static pod.
 *
 * @param name host name used in messages
 * @param host SSH host
 * @param sshPort SSH port (0: the cluster's default)
 * @param manifestPath kube-apiserver static-pod manifest, for example
 *     /etc/kubernetes/manifests/kube-apiserver.yaml
 * @param healthUrl the apiserver's health endpoint, for example https://10.0.0.1:6443/readyz
 */
public record ControlPlaneHost(
    String name, String host, int sshPort, String manifestPath, String healthUrl) {}
