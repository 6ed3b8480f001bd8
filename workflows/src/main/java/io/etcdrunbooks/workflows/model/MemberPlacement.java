package io.etcdrunbooks.workflows.model;

/**
 * Where a new member runs: its name, host and URLs, and the paths it uses there. Paths left empty
 * are taken from the member it replaces. Nothing secret: the SSH user, key and known_hosts file
 * come from the cluster's inventory entry.
 *
 * @param name etcd member name, new in the cluster
 * @param host SSH host name or address
 * @param sshPort SSH port (0: the cluster's default)
 * @param peerUrl advertised peer URL, for example https://10.0.0.4:2380
 * @param clientUrl advertised client URL, for example https://10.0.0.4:2379
 * @param dataDir etcd data dir on the host (empty: the replaced member's)
 * @param installDir where versions live on the host (empty: the replaced member's)
 * @param serviceDir plain service manager: directory with etcd.env, etcd.pid and etcd.log (empty:
 *     the replaced member's)
 */
public record MemberPlacement(
    String name,
    String host,
    int sshPort,
    String peerUrl,
    String clientUrl,
    String dataDir,
    String installDir,
    String serviceDir) {}
