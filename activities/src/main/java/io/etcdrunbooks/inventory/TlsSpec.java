package io.etcdrunbooks.inventory;

/**
 * Client TLS for etcd: CA bundle, client certificate and its key (paths on the worker's host).
 *
 * @param expiryWarningDays a member certificate that expires within this many days is refused by
 *     the preflights (default 14)
 */
public record TlsSpec(String caFile, String certFile, String keyFile, Integer expiryWarningDays) {

  public TlsSpec(String caFile, String certFile, String keyFile) {
    this(caFile, certFile, keyFile, null);
  }
}
