package io.etcdrunbooks.workflows.tls;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.workflows.common.RunbookIds;
import io.etcdrunbooks.workflows.testing.RecordedHistories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Replays TLS reconfigurations recorded on real clusters with the code they shipped with against
 * today's workflow code: enabling TLS on http 3.4.23 and 3.5.30 clusters with kube-apiserver
 * stand-ins (EnableTlsTest; the last one held for a plain http client it does not manage, then
 * approved), a CA rotation (RotateCaTest) and a certificate rotation on a static-pod cluster
 * (ReconfigureTlsTest), and both on kubeadm's layout, whose peer, healthcheck client and apiserver
 * client certificates were renewed with the rest, each recorded into
 * worker/target/recorded-*-history.json. A change that breaks one needs Workflow.getVersion.
 */
class ReconfigureTlsReplayTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "enable-tls-3.4.23",
        "enable-tls-3.5.30",
        "enable-tls-3.5.30-unmanaged-client-held",
        "rotate-ca-3.5.30",
        "rotate-certificates-3.5.30-static-pod",
        "rotate-ca-3.5.30-kubeadm-pki",
        "rotate-certificates-3.5.30-kubeadm-pki"
      })
  void todaysCodeReplaysARecordedReconfigurationThatHoldsNoPrivateKey(String history)
      throws Exception {
    String resource = "histories/" + history + ".json";
    RecordedHistories.replay(
        resource, RunbookIds.changing("sandbox"), ReconfigureTlsWorkflowImpl.class);
    try (var in = getClass().getClassLoader().getResourceAsStream(resource)) {
      // the runs issued keys for every member and kube-apiserver: none may be in the history
      assertThat(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8))
          .doesNotContain("PRIVATE KEY");
    }
  }

  /**
   * A rotation whose second member kept serving its old certificate, recorded in memory by
   * ReconfigureTlsControlFlowTest with the code that entered COMPENSATE by hand: both members' old
   * certificates put back, newest first, as the phase runner does it now.
   */
  @Test
  void todaysCodeReplaysARotationWhoseOldCertificatesWerePutBack() throws Exception {
    RecordedHistories.replay(
        "histories/rotate-certificates-in-memory-old-certificates-put-back.json",
        RunbookIds.changing("c"),
        ReconfigureTlsWorkflowImpl.class);
  }
}
