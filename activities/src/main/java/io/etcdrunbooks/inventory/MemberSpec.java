package io.etcdrunbooks.inventory;

/**
 * One member and the host it runs on.
 *
 * @param name etcd member name
 * @param host SSH host name or address
 * @param sshPort SSH port (0: the cluster's default)
 * @param clientUrl the member's advertised client URL
 * @param peerUrl the member's advertised peer URL
 * @param dataDir etcd data dir on the host
 * @param installDir where versions live on the host: {@code versions/<version>/etcd} and the {@code
 *     current} link the service runs
 * @param serviceDir plain service manager: directory with etcd.env, etcd.pid and etcd.log
 */
public record MemberSpec(
    String name,
    String host,
    int sshPort,
    String clientUrl,
    String peerUrl,
    String dataDir,
    String installDir,
    String serviceDir) {
  /** Where this member is, as the workflows see it. */
  public io.etcdrunbooks.workflows.model.MemberPlacement placement() {
    return new io.etcdrunbooks.workflows.model.MemberPlacement(
        name, host, sshPort, peerUrl, clientUrl, dataDir, installDir, serviceDir);
  }
}
