package io.etcdrunbooks.workflows.activities;

import io.temporal.activity.ActivityInterface;
import java.util.List;

/**
 * Certificates of a TLS cluster: checked on the worker before anything is touched, put in place on
 * a member's host over SSH (etcd reads its certificate files again for every new TLS handshake, so
 * no restart is needed), and seen in a real handshake. Private keys go from the worker's files to
 * the hosts' files and nowhere else: never into a request, a result or a message.
 */
@ActivityInterface(namePrefix = "Tls")
public interface TlsActivities {

  /**
   * Every problem with the new certificates of these members (or, with {@code caKeyFile}, with the
   * CA key they will be issued from: its file mode, that it is the CA certificate's key, that
   * {@code validityDays} outlives the expiry window), from {@code certificatesDir} on the worker
   * ({@code <member>.crt} and {@code <member>.key}): missing or open key files, a key that does not
   * match, a chain that does not reach the cluster's CA (the inventory's tls.caFile), names that do
   * not cover the member's client and peer addresses, expiry. Empty when all may be used. Touches
   * nothing.
   */
  List<String> checkCertificates(CheckCertificatesRequest request);

  /**
   * Puts the member's new certificate and key from {@code certificatesDir} in place of the files it
   * serves ({@code certFile}, {@code keyFile}), each replaced atomically with the owner and mode of
   * the file it replaces, the previous ones kept as {@code <file>.before-<rotationId>}. Returns the
   * SHA-256 fingerprint of the new certificate. Skips what is done.
   */
  String installCertificate(InstallCertificateRequest request);

  /**
   * Puts the files kept by {@link #installCertificate} back. Returns false when there was nothing
   * to put back.
   */
  boolean putCertificateBack(InstallCertificateRequest request);

  /**
   * Heartbeats until the member presents the certificate with this SHA-256 fingerprint in a new TLS
   * handshake on its client URL, or fails naming what it presents.
   */
  void awaitServedCertificate(AwaitCertificateRequest request);

  /**
   * @param certificatesDir a directory on the worker with {@code <member>.crt} and {@code
   *     <member>.key} for each member
   */
  record CheckCertificatesRequest(
      String cluster,
      String certificatesDir,
      List<String> members,
      String caKeyFile,
      int validityDays) {}

  /**
   * @param certFile the member's --cert-file on its host
   * @param keyFile the member's --key-file on its host
   * @param caKeyFile when set, the certificate is issued now from the cluster's CA with this key
   *     (valid {@code validityDays}) instead of read from certificatesDir
   */
  record InstallCertificateRequest(
      String cluster,
      String member,
      String certificatesDir,
      String rotationId,
      String certFile,
      String keyFile,
      String caKeyFile,
      int validityDays) {}

  record AwaitCertificateRequest(
      String cluster, String member, String fingerprint, int timeoutSeconds) {}
}
