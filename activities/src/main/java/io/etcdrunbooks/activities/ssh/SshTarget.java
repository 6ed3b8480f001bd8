package io.etcdrunbooks.activities.ssh;

import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.ControlPlaneHost;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.inventory.SshSpec;

/**
 * Where and as whom to log in. Holds the path of the private key, never the key.
 *
 * @param knownHostsFile the only source of trusted host keys for this target
 */
public record SshTarget(
    String host, int port, String user, String privateKeyFile, String knownHostsFile) {

  public static final int DEFAULT_PORT = 22;

  /**
   * The member's host with the cluster's SSH settings; port: the member's, else the cluster's, else
   * 22.
   */
  public static SshTarget of(ClusterSpec cluster, MemberSpec member) {
    return of(cluster, member.host(), member.sshPort());
  }

  /**
   * A control-plane host with the cluster's SSH settings; port: the host's, else the cluster's,
   * else 22.
   */
  public static SshTarget of(ClusterSpec cluster, ControlPlaneHost host) {
    return of(cluster, host.host(), host.sshPort());
  }

  private static SshTarget of(ClusterSpec cluster, String host, int sshPort) {
    SshSpec ssh = cluster.ssh();
    if (ssh == null)
      throw new IllegalArgumentException("cluster '" + cluster.name() + "' has no ssh settings");
    int port = sshPort != 0 ? sshPort : ssh.port() != 0 ? ssh.port() : DEFAULT_PORT;
    return new SshTarget(host, port, ssh.user(), ssh.privateKeyFile(), ssh.knownHostsFile());
  }

  /** host:port, for messages. */
  public String address() {
    return host + ":" + port;
  }
}
