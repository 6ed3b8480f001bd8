package io.etcdrunbooks.inventory;

/**
 * etcd credentials for a cluster with authentication enabled: a user with the root role (the
 * runbooks read alarms, take snapshots and change membership) and a file on the worker's host that
 * holds its password (mode 0600, like every secret file; the password is never logged).
 */
public record EtcdAuthSpec(String user, String passwordFile) {}
