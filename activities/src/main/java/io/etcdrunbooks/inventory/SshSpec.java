package io.etcdrunbooks.inventory;

/**
 * SSH access to a cluster's hosts. Host keys are always checked against {@code knownHostsFile}.
 *
 * @param user login user
 * @param port default port (22 when 0)
 * @param privateKeyFile path of the private key on the worker's host (the key itself never leaves
 *     the worker)
 * @param knownHostsFile path of the known_hosts file on the worker's host
 */
public record SshSpec(String user, int port, String privateKeyFile, String knownHostsFile) {}
