package io.etcdrunbooks.workflows.model;

/**
 * The worker's TLS toward a cluster's client URLs, paths on the worker: the CA the members'
 * certificates chain to, and the client certificate and key the worker presents. Paths only: the
 * key itself never leaves its file.
 */
public record ClientTls(String caFile, String certFile, String keyFile) {}
