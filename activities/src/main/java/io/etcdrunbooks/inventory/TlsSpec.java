package io.etcdrunbooks.inventory;

/** Client TLS for etcd: CA bundle, client certificate and its key (paths on the worker's host). */
public record TlsSpec(String caFile, String certFile, String keyFile) {}
