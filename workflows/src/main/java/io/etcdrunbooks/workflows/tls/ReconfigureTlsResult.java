package io.etcdrunbooks.workflows.tls;

import java.util.List;
import java.util.Map;

/**
 * Outcome of a ReconfigureTls runbook.
 *
 * @param rotationId in the names of the certificate files kept ({@code <file>.before-<id>})
 * @param fingerprints member -> SHA-256 fingerprint of the certificate it serves now
 * @param rotated members whose files were replaced, in order
 * @param notAfter member -> end of the new certificate's validity, as the postflight saw it
 * @param renewedFiles {@code <member or control-plane host>:<file>} -> SHA-256 fingerprint of each
 *     certificate renewed besides the members' serving ones (peer, healthcheck client,
 *     kube-apiserver's etcd client)
 */
public record ReconfigureTlsResult(
    String cluster,
    String mode,
    String rotationId,
    Map<String, String> fingerprints,
    List<String> rotated,
    Map<String, String> notAfter,
    boolean dryRun,
    Map<String, String> renewedFiles) {

  public ReconfigureTlsResult {
    renewedFiles = renewedFiles == null ? Map.of() : Map.copyOf(renewedFiles);
  }
}
