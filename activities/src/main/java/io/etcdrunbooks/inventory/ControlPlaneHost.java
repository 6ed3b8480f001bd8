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
 * @param encryptionConfigPath the kube-apiserver's EncryptionConfiguration file (its {@code
 *     --encryption-provider-config}), for example /etc/kubernetes/enc/encryption-config.yaml; every
 *     backup records its key names, and a restore compares them (null: none)
 */
public record ControlPlaneHost(
    String name,
    String host,
    int sshPort,
    String manifestPath,
    String healthUrl,
    String encryptionConfigPath) {

  public ControlPlaneHost(
      String name, String host, int sshPort, String manifestPath, String healthUrl) {
    this(name, host, sshPort, manifestPath, healthUrl, null);
  }

  public boolean namesEncryptionConfig() {
    return encryptionConfigPath != null && !encryptionConfigPath.isBlank();
  }
}
