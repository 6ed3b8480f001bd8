package io.etcdrunbooks.workflows.tls;

import io.etcdrunbooks.workflows.model.ClientTls;

/**
 * The new CA of a {@code rotate-ca} run, on the worker: {@code
 * {"caFile":"/etc/etcd-runbooks/prod-1/new-ca.crt","clientCertFile":"...","clientKeyFile":"..."}}.
 *
 * @param caFile the new CA's certificate; it becomes the inventory's tls.caFile at the end
 * @param clientCertFile the worker's new client certificate, issued by the new CA
 * @param clientKeyFile its key (mode 0600)
 */
public record RotateCa(String caFile, String clientCertFile, String clientKeyFile) {

  /** The worker's TLS once the old CA is gone. */
  public ClientTls workerTls() {
    return new ClientTls(caFile, clientCertFile, clientKeyFile);
  }
}
