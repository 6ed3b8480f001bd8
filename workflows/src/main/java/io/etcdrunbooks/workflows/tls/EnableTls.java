package io.etcdrunbooks.workflows.tls;

import io.etcdrunbooks.workflows.model.ClientTls;

/**
 * What enabling TLS on an http cluster needs beyond the certificates: {@code
 * {"urls":"both","caFile":"/etc/etcd-runbooks/prod-1/ca.crt","clientCertFile":"...","clientKeyFile":"..."}}.
 *
 * @param urls {@value #CLIENT}, {@value #PEER} or {@value #BOTH} (null: both)
 * @param caFile on the worker: the CA every certificate chains to; it becomes the inventory's
 *     tls.caFile, and each host gets a copy
 * @param clientCertFile on the worker: the certificate the worker presents to the members once they
 *     require client certificates (the inventory's tls.certFile); client URLs only
 * @param clientKeyFile its key, on the worker (mode 0600)
 * @param memberPkiDir on each member's host, where its ca.crt, server.crt and server.key go; {@code
 *     {member}} stands for the member's name (null: a plain member's serviceDir/pki, a static pod's
 *     /etc/kubernetes/pki/etcd)
 * @param apiServerPkiDir on each control-plane host, where kube-apiserver's etcd client certificate
 *     goes as kubeadm lays it out (apiserver-etcd-client.crt and .key, etcd/ca.crt); {@code {host}}
 *     stands for the host's name (null: the pki directory beside the manifests directory,
 *     /etc/kubernetes/pki)
 */
public record EnableTls(
    String urls,
    String caFile,
    String clientCertFile,
    String clientKeyFile,
    String memberPkiDir,
    String apiServerPkiDir) {

  public static final String CLIENT = "client";
  public static final String PEER = "peer";
  public static final String BOTH = "both";

  /** Client and peer URLs, the host directories by default. */
  public static EnableTls both(String caFile, String clientCertFile, String clientKeyFile) {
    return new EnableTls(BOTH, caFile, clientCertFile, clientKeyFile, null, null);
  }

  /** These URLs only ({@value #CLIENT}, {@value #PEER}, {@value #BOTH}). */
  public EnableTls forUrls(String which) {
    return new EnableTls(
        which, caFile, clientCertFile, clientKeyFile, memberPkiDir, apiServerPkiDir);
  }

  public String effectiveUrls() {
    return urls == null || urls.isBlank() ? BOTH : urls;
  }

  public boolean coversClients() {
    return !PEER.equals(effectiveUrls());
  }

  public boolean coversPeers() {
    return !CLIENT.equals(effectiveUrls());
  }

  /** The worker's TLS toward the members once they serve https. */
  public ClientTls workerTls() {
    return new ClientTls(caFile, clientCertFile, clientKeyFile);
  }
}
