package io.etcdrunbooks.workflows.tls;

import io.etcdrunbooks.workflows.common.RunbookOptions;

/**
 * Input of the ReconfigureTls runbook, one JSON object so the Temporal Web UI can start it: {@code
 * {"cluster":"prod-1","mode":"rotate-certificates","certificatesDir":"/etc/etcd-runbooks/new-certs/prod-1"}}.
 *
 * @param mode {@value #ROTATE_CERTIFICATES}, {@value #ENABLE} or {@value #ROTATE_CA}
 * @param certificatesDir on the worker: {@code <member>.crt} and {@code <member>.key} for each
 *     member, issued by the CA the cluster trusts (the inventory's tls.caFile)
 * @param memberTimeoutSeconds how long each member may take to serve its new certificate and be
 *     healthy (0: 120 s)
 * @param caKeyFile instead of certificatesDir: the key of the CA the cluster trusts (the
 *     inventory's tls.caFile), on the worker; each member gets a new certificate issued from it, as
 *     kubeadm renews etcd's certificates
 * @param validityDays with caKeyFile: how long the issued certificates are valid (0: 365)
 * @param enable mode {@value #ENABLE}: which URLs, the CA, the worker's client certificate, where
 *     the files go on the hosts
 * @param rotateCa mode {@value #ROTATE_CA}: the new CA and the worker's certificate from it;
 *     caKeyFile (or certificatesDir) then is the new CA's
 * @param emergency mode {@value #ROTATE_CERTIFICATES} during an outage (certificates expired, so no
 *     member answers): members are not checked for health before or between replacements, each is
 *     checked by a handshake with its new certificate instead; the postflight checks the cluster's
 *     health
 * @param ignoreUnmanagedClients modes {@value #ENABLE} (client URLs) and {@value #ROTATE_CA}: the
 *     step that cuts plain http (or the old CA) off does not hold for an approval when clients the
 *     inventory does not know of are connected to a member; they are still listed
 */
public record ReconfigureTlsRequest(
    String cluster,
    String mode,
    String certificatesDir,
    boolean dryRun,
    boolean requireApproval,
    int memberTimeoutSeconds,
    String caKeyFile,
    int validityDays,
    EnableTls enable,
    RotateCa rotateCa,
    boolean emergency,
    boolean ignoreUnmanagedClients) {

  public static final String ROTATE_CERTIFICATES = "rotate-certificates";
  public static final String ENABLE = "enable";
  public static final String ROTATE_CA = "rotate-ca";

  /**
   * The cluster moved to a new CA: both CAs trusted everywhere, every certificate re-issued from
   * the new one (from the new CA's key, or from certificatesDir), then the old CA dropped.
   */
  public static ReconfigureTlsRequest rotateCa(
      String cluster,
      String newCaKeyFile,
      int validityDays,
      RotateCa newCa,
      RunbookOptions options) {
    return of(cluster, ROTATE_CA, null, options)
        .issuedFrom(newCaKeyFile, validityDays)
        .movingTo(newCa);
  }

  /** This request with the new CA of a rotate-ca run. */
  public ReconfigureTlsRequest movingTo(RotateCa newCa) {
    return new ReconfigureTlsRequest(
        cluster,
        mode,
        certificatesDir,
        dryRun,
        requireApproval,
        memberTimeoutSeconds,
        caKeyFile,
        validityDays,
        enable,
        newCa,
        emergency,
        ignoreUnmanagedClients);
  }

  /**
   * TLS enabled on a running http cluster: certificates from a directory on the worker ({@code
   * <member>.crt} and {@code .key}, and {@code apiserver-etcd-client.crt} and {@code .key} when
   * client URLs move and the cluster has control-plane hosts).
   */
  public static ReconfigureTlsRequest enable(
      String cluster, String certificatesDir, EnableTls enable, RunbookOptions options) {
    return of(cluster, ENABLE, certificatesDir, options).enabling(enable);
  }

  /** TLS enabled on a running http cluster, every certificate issued from the CA's key. */
  public static ReconfigureTlsRequest enableIssued(
      String cluster,
      String caKeyFile,
      int validityDays,
      EnableTls enable,
      RunbookOptions options) {
    return of(cluster, ENABLE, null, options).issuedFrom(caKeyFile, validityDays).enabling(enable);
  }

  /** This request with what enabling TLS needs. */
  public ReconfigureTlsRequest enabling(EnableTls settings) {
    return new ReconfigureTlsRequest(
        cluster,
        mode,
        certificatesDir,
        dryRun,
        requireApproval,
        memberTimeoutSeconds,
        caKeyFile,
        validityDays,
        settings,
        rotateCa,
        emergency,
        ignoreUnmanagedClients);
  }

  /** New server certificates for every member, from a directory on the worker. */
  public static ReconfigureTlsRequest rotateCertificates(
      String cluster, String certificatesDir, RunbookOptions options) {
    return of(cluster, ROTATE_CERTIFICATES, certificatesDir, options);
  }

  /** A reconfiguration in any mode, as the API passes on what it was asked. */
  public static ReconfigureTlsRequest of(
      String cluster, String mode, String certificatesDir, RunbookOptions options) {
    return new ReconfigureTlsRequest(
        cluster,
        mode,
        certificatesDir,
        options.dryRun(),
        options.requireApproval(),
        options.memberTimeoutSeconds(),
        null,
        0,
        null,
        null,
        false,
        false);
  }

  /** New certificates issued for every member from the cluster's CA key, on the worker. */
  public static ReconfigureTlsRequest renewCertificates(
      String cluster, String caKeyFile, int validityDays, RunbookOptions options) {
    return of(cluster, ROTATE_CERTIFICATES, null, options).issuedFrom(caKeyFile, validityDays);
  }

  /** This request, its certificates issued from a CA key instead of read from a directory. */
  public ReconfigureTlsRequest issuedFrom(String caKey, int days) {
    return new ReconfigureTlsRequest(
        cluster,
        mode,
        certificatesDir,
        dryRun,
        requireApproval,
        memberTimeoutSeconds,
        caKey,
        days,
        enable,
        rotateCa,
        emergency,
        ignoreUnmanagedClients);
  }

  /** This request as an emergency rotation (or not): see {@code emergency}. */
  public ReconfigureTlsRequest inEmergency(boolean during) {
    return new ReconfigureTlsRequest(
        cluster,
        mode,
        certificatesDir,
        dryRun,
        requireApproval,
        memberTimeoutSeconds,
        caKeyFile,
        validityDays,
        enable,
        rotateCa,
        during,
        ignoreUnmanagedClients);
  }

  /** This request with the hold for unmanaged clients skipped (or not): see its field. */
  public ReconfigureTlsRequest ignoringUnmanagedClients(boolean ignore) {
    return new ReconfigureTlsRequest(
        cluster,
        mode,
        certificatesDir,
        dryRun,
        requireApproval,
        memberTimeoutSeconds,
        caKeyFile,
        validityDays,
        enable,
        rotateCa,
        emergency,
        ignore);
  }

  public boolean fromCaKey() {
    return caKeyFile != null && !caKeyFile.isBlank();
  }

  public int effectiveValidityDays() {
    return validityDays > 0 ? validityDays : 365;
  }

  public int effectiveMemberTimeoutSeconds() {
    return memberTimeoutSeconds > 0 ? memberTimeoutSeconds : 120;
  }
}
