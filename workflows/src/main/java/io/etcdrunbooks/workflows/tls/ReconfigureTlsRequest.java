package io.etcdrunbooks.workflows.tls;

import io.etcdrunbooks.workflows.common.RunbookOptions;

/**
 * Input of the ReconfigureTls runbook, one JSON object so the Temporal Web UI can start it: {@code
 * {"cluster":"prod-1","mode":"rotate-certificates","certificatesDir":"/etc/etcd-runbooks/new-certs/prod-1"}}.
 *
 * @param mode {@value #ROTATE_CERTIFICATES} (the only mode built so far)
 * @param certificatesDir on the worker: {@code <member>.crt} and {@code <member>.key} for each
 *     member, issued by the CA the cluster trusts (the inventory's tls.caFile)
 * @param memberTimeoutSeconds how long each member may take to serve its new certificate and be
 *     healthy (0: 120 s)
 */
public record ReconfigureTlsRequest(
    String cluster,
    String mode,
    String certificatesDir,
    boolean dryRun,
    boolean requireApproval,
    int memberTimeoutSeconds) {

  public static final String ROTATE_CERTIFICATES = "rotate-certificates";

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
        options.memberTimeoutSeconds());
  }

  public int effectiveMemberTimeoutSeconds() {
    return memberTimeoutSeconds > 0 ? memberTimeoutSeconds : 120;
  }
}
