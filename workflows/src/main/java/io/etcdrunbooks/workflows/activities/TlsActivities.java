package io.etcdrunbooks.workflows.activities;

import io.etcdrunbooks.workflows.model.ClientTls;
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
   * Puts a CA certificate, a certificate and its key on one host, for TLS not served yet (enabling
   * it): a member's {@code ca.crt}, {@code server.crt} and {@code server.key} in {@code hostDir}
   * (also its peer certificate), or a control-plane host's {@code etcd/ca.crt}, {@code
   * apiserver-etcd-client.crt} and {@code .key} under {@code hostDir}, kubeadm's layout. Keys mode
   * 0600, every file owned as the member's data dir (the control-plane host's manifest); files
   * there before are kept as {@code <file>.before-<changeId>}. The certificate comes from {@code
   * certificatesDir} ({@code <member>.crt}, {@code apiserver-etcd-client.crt}) or is issued now
   * from {@code caKeyFile}. Returns where the files are and the certificate's SHA-256 fingerprint;
   * skips what is in place already.
   */
  PlacedCertificates placeCertificates(PlaceCertificatesRequest request);

  /**
   * Takes away what {@link #placeCertificates} put on the host, putting files it replaced back.
   * Returns false when there was nothing to take away.
   */
  boolean removePlacedCertificates(PlaceCertificatesRequest request);

  /**
   * Puts two CA files beside {@code besideFile} on a member's host (its --trusted-ca-file), or
   * beside a control-plane host's {@code --etcd-cafile} (read from its manifest when {@code
   * besideFile} is null): {@code ca-<changeId>-both.crt} (old and new CA, for the move) and {@code
   * ca-<changeId>-new.crt}. Returns their paths; skips files in place already.
   */
  PlacedTrust placeTrust(PlaceTrustRequest request);

  /** Takes away the files {@link #placeTrust} put there; false when there were none. */
  boolean removePlacedTrust(PlaceTrustRequest request);

  /**
   * The old and the new CA in one file on the worker, beside the new CA file ({@code
   * .ca-<changeId>-both.crt}), for the worker's trust while members move between CAs. Returns its
   * path; written again only when its content differs.
   */
  String workerTrust(WorkerTrustRequest request);

  /**
   * @param oldCaFile on the worker, the CA the cluster trusts now
   * @param newCaFile on the worker, the CA it moves to
   */
  record PlaceTrustRequest(
      String cluster,
      String member,
      String controlPlaneHost,
      String oldCaFile,
      String newCaFile,
      String besideFile,
      String changeId) {}

  /**
   * @param dir the directory both files are in, on the host
   * @param before a control-plane host's etcd client TLS as its manifest had it (null for a
   *     member), for the way back
   */
  record PlacedTrust(String both, String onlyNew, String dir, ClientTls before) {}

  record WorkerTrustRequest(String oldCaFile, String newCaFile, String changeId) {}

  /**
   * Every certificate file that the members and kube-apiservers present to etcd besides each
   * member's --cert-file (the one rotate-certificates replaces), read over SSH: a member's own peer
   * certificate (its --peer-cert-file, when that is another file), kubeadm's {@code
   * healthcheck-client.crt} beside its --cert-file, and each control-plane host's --etcd-certfile.
   * Certificates are public; no key is read.
   */
  List<PresentedCertificate> otherCertificates(OtherCertificatesRequest request);

  /**
   * @param serving each running member's --cert-file on its host
   * @param peerCertFiles each member's --peer-cert-file, where it has one
   */
  record OtherCertificatesRequest(
      String cluster,
      java.util.Map<String, String> serving,
      java.util.Map<String, String> peerCertFiles) {}

  /**
   * @param host the member or control-plane host holding the file
   * @param use what it is presented for: {@value #PEER}, {@value #HEALTHCHECK_CLIENT} or {@value
   *     #APISERVER_CLIENT}
   * @param file its path on the host
   * @param notAfter when it expires (ISO-8601), or why it could not be read
   */
  record PresentedCertificate(String host, String use, String file, String notAfter) {
    public static final String PEER = "peer certificate";
    public static final String HEALTHCHECK_CLIENT = "healthcheck client certificate";
    public static final String APISERVER_CLIENT = "kube-apiserver's etcd client certificate";
  }

  /**
   * Renews one certificate file a member or control-plane host presents to etcd besides a member's
   * --cert-file (one {@link #otherCertificates} found): a certificate issued now from the CA key
   * with the subject, names, key usages and public key of the one in the file, so the key file
   * stays as it is and the certificate changes in one rename (owner and mode kept, the old file
   * kept as {@code <file>.before-<rotationId>}). Returns the new certificate's SHA-256 fingerprint;
   * a file renewed by this rotation already is left as it is.
   */
  String renewCertificateFile(RenewCertificateFileRequest request);

  /**
   * Puts the file kept by {@link #renewCertificateFile} back; false when there was nothing to put
   * back.
   */
  boolean putCertificateFileBack(RenewCertificateFileRequest request);

  /**
   * Heartbeats until the member presents the certificate with this fingerprint in a new TLS
   * handshake on its peer URL, or fails naming what it presents.
   */
  void awaitServedPeerCertificate(AwaitCertificateRequest request);

  /**
   * @param member the member whose host holds the file; or null, with {@code controlPlaneHost}
   * @param certFile the certificate file on that host
   * @param caFile the CA certificate on the worker to issue from; null: the inventory's tls.caFile
   */
  record RenewCertificateFileRequest(
      String cluster,
      String member,
      String controlPlaneHost,
      String certFile,
      String rotationId,
      String caKeyFile,
      int validityDays,
      String caFile) {

    /** The member or control-plane host holding the file. */
    public String host() {
      return member != null ? member : controlPlaneHost;
    }
  }

  /**
   * The member's URLs that still answer plain http: its client URL (when {@code client}) and its
   * peer URL (when {@code peer}), each asked for {@code /version} over http on the same port.
   */
  List<String> plainHttpServed(PlainHttpRequest request);

  /**
   * @param certificatesDir a directory on the worker with {@code <member>.crt} and {@code
   *     <member>.key} for each member
   * @param caFile the CA they must chain to, on the worker; null: the inventory's tls.caFile
   * @param workerTls enabling TLS: the worker's own client certificate, checked against caFile
   * @param apiServerClient enabling TLS with control-plane hosts: certificatesDir also holds {@code
   *     apiserver-etcd-client.crt} and {@code .key}, checked as a client certificate
   * @param forPeers enabling peer TLS: each member's certificate is its peer client certificate
   *     too, so it must allow client authentication
   */
  record CheckCertificatesRequest(
      String cluster,
      String certificatesDir,
      List<String> members,
      String caKeyFile,
      int validityDays,
      String caFile,
      ClientTls workerTls,
      boolean apiServerClient,
      boolean forPeers) {

    public CheckCertificatesRequest(
        String cluster,
        String certificatesDir,
        List<String> members,
        String caKeyFile,
        int validityDays) {
      this(cluster, certificatesDir, members, caKeyFile, validityDays, null, null, false, false);
    }
  }

  /**
   * @param member the member whose host gets its files; or null, with {@code controlPlaneHost}
   * @param caFile the CA certificate on the worker, copied to the host and issuing with caKeyFile
   * @param hostDir the directory on the host: {@code {member}} or {@code {host}} in it stands for
   *     the name; null: a plain member's serviceDir/pki, a static pod's /etc/kubernetes/pki/etcd, a
   *     control-plane host's pki directory beside its manifests directory
   */
  record PlaceCertificatesRequest(
      String cluster,
      String member,
      String controlPlaneHost,
      String certificatesDir,
      String caKeyFile,
      int validityDays,
      String caFile,
      String hostDir,
      String changeId) {}

  /** Paths on the host, for the flags that use them, and the certificate's fingerprint. */
  record PlacedCertificates(String fingerprint, String caFile, String certFile, String keyFile) {

    public PlacedCertificates withFingerprint(String placed) {
      return new PlacedCertificates(placed, caFile, certFile, keyFile);
    }
  }

  record PlainHttpRequest(String cluster, String member, boolean client, boolean peer) {}

  /**
   * @param certFile the member's --cert-file on its host
   * @param keyFile the member's --key-file on its host
   * @param caKeyFile when set, the certificate is issued now from the cluster's CA with this key
   *     (valid {@code validityDays}) instead of read from certificatesDir
   * @param caFile the CA certificate on the worker it is issued from and checked against; null: the
   *     inventory's tls.caFile
   */
  record InstallCertificateRequest(
      String cluster,
      String member,
      String certificatesDir,
      String rotationId,
      String certFile,
      String keyFile,
      String caKeyFile,
      int validityDays,
      String caFile) {

    public InstallCertificateRequest(
        String cluster,
        String member,
        String certificatesDir,
        String rotationId,
        String certFile,
        String keyFile,
        String caKeyFile,
        int validityDays) {
      this(
          cluster,
          member,
          certificatesDir,
          rotationId,
          certFile,
          keyFile,
          caKeyFile,
          validityDays,
          null);
    }
  }

  /**
   * @param tls when set, the handshake is made with this trust and client certificate on the
   *     member's client address over https, whatever the inventory says (TLS being enabled)
   */
  record AwaitCertificateRequest(
      String cluster, String member, String fingerprint, int timeoutSeconds, ClientTls tls) {

    public AwaitCertificateRequest(
        String cluster, String member, String fingerprint, int timeoutSeconds) {
      this(cluster, member, fingerprint, timeoutSeconds, null);
    }
  }
}
