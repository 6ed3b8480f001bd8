package io.etcdrunbooks.workflows.tls;

import static io.etcdrunbooks.workflows.testing.RunbookWaits.workflowFailure;
import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.workflows.activities.TlsActivities.PresentedCertificate;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.RunbookIds;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.testing.FakeCluster;
import io.etcdrunbooks.workflows.testing.HistoryExport;
import io.etcdrunbooks.workflows.testing.RecordingActivities;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

/**
 * Every way a certificate rotation can end, on a cluster and certificate files in memory.
 * ReconfigureTlsTest in the worker module runs it against real TLS etcd clusters.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class ReconfigureTlsControlFlowTest {

  private static final String QUEUE = "tls-control-flow";
  private static final List<String> MEMBERS = List.of("m1", "m2", "m3");

  private final TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance();
  private final FakeCluster cluster = tlsCluster();
  private final FakeCertificates certificates = new FakeCertificates(MEMBERS);
  private RecordingActivities recording;

  @AfterEach
  void close(TestInfo test) {
    HistoryExport.ifAsked(
        env,
        RunbookIds.changing("c"),
        "reconfigure-tls-in-memory-" + test.getTestMethod().orElseThrow().getName());
    env.close();
  }

  @Test
  void eachMemberGetsItsNewCertificateAndServesItBeforeTheNextOne() {
    ReconfigureTlsResult result = stub().reconfigure(request(false, "/etc/new-certs"));

    assertThat(result.rotated()).containsExactly("m1", "m2", "m3");
    assertThat(certificates.served())
        .isEqualTo(Map.of("m1", "new-m1", "m2", "new-m2", "m3", "new-m3"));
    assertThat(recording.calls())
        .containsSubsequence(
            "HostActivities.memberFlags",
            "TlsActivities.checkCertificates",
            "HostActivities.checkAccess",
            "TlsActivities.installCertificate",
            "TlsActivities.awaitServedCertificate",
            "EtcdActivities.awaitMemberReady",
            "TlsActivities.installCertificate",
            "TlsActivities.awaitServedCertificate",
            "EtcdActivities.awaitMemberReady",
            "TlsActivities.installCertificate",
            "EtcdActivities.checkConsistency");
    assertThat(recording.calls()).doesNotContain("HostActivities.stopMember");
  }

  @Test
  void aMemberThatKeepsServingItsOldCertificateGetsItsOldFilesBackWithEveryMemberBeforeIt() {
    certificates.neverServesTheNewOne("m2");

    Throwable failure = workflowFailure(() -> stub().reconfigure(request(false, "/etc/new")));

    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.TlsRolledBack.name());
    assertThat(Failures.rootMessage(failure))
        .contains("member m2 did not take its new certificate", "member m2 serves old-m2");
    assertThat(certificates.putBack()).containsExactly("m2", "m1");
    assertThat(certificates.served())
        .isEqualTo(Map.of("m1", "old-m1", "m2", "old-m2", "m3", "old-m3"));
  }

  @Test
  void aRelativeCertificatesDirIsRefusedBeforeAnythingIsRead() {
    Throwable relative = workflowFailure(() -> stub().reconfigure(request(false, "new-certs")));

    assertThat(Failures.rootType(relative)).isEqualTo(FailureType.TlsRefused.name());
    assertThat(Failures.rootMessage(relative)).contains("certificatesDir must be an absolute");
    assertThat(recording.calls()).isEmpty();
  }

  @Test
  void bothACertificatesDirAndACaKeyAreRefusedAsAmbiguous() {
    Throwable both =
        workflowFailure(
            () -> stub().reconfigure(request(false, "/etc/new").issuedFrom("/etc/ca.key", 90)));

    assertThat(Failures.rootMessage(both))
        .contains("give either certificatesDir", "or caKeyFile", "not both and not neither");
    assertThat(recording.calls()).isEmpty();
  }

  @Test
  void certificatesIssuedFromACaKeyAreCheckedAndInstalledWithIt() {
    ReconfigureTlsResult result =
        stub()
            .reconfigure(
                ReconfigureTlsRequest.renewCertificates(
                    "c", "/etc/ca.key", 90, RunbookOptions.defaults()));

    assertThat(result.rotated()).containsExactly("m1", "m2", "m3");
    assertThat(certificates.issuedWith()).containsOnly("/etc/ca.key:90");
  }

  @Test
  void aCertificateProblemIsRefusedTouchingNothing() {
    certificates.checkFinds("member m3: the certificate in /x/m3.crt does not cover 10.0.0.3");

    Throwable failure = workflowFailure(() -> stub().reconfigure(request(false, "/etc/new")));

    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.TlsRefused.name());
    assertThat(Failures.rootMessage(failure)).contains("does not cover 10.0.0.3");
    assertThat(recording.calls()).doesNotContain("TlsActivities.installCertificate");
  }

  @Test
  void kubeadmsPeerHealthcheckAndApiserverCertificatesAreEachRefusedWithTheirExpiry() {
    certificates.alsoPresented(
        new PresentedCertificate(
            "m1",
            PresentedCertificate.PEER,
            "/etc/kubernetes/pki/etcd/peer.crt",
            "2027-01-01T00:00:00Z"),
        new PresentedCertificate(
            "m2",
            PresentedCertificate.HEALTHCHECK_CLIENT,
            "/etc/kubernetes/pki/etcd/healthcheck-client.crt",
            "2027-01-02T00:00:00Z"),
        new PresentedCertificate(
            "cp-m1",
            PresentedCertificate.APISERVER_CLIENT,
            "/etc/kubernetes/pki/apiserver-etcd-client.crt",
            "2027-01-03T00:00:00Z"));

    Throwable failure = workflowFailure(() -> stub().reconfigure(request(false, "/etc/new")));

    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.TlsRefused.name());
    assertThat(Failures.rootMessage(failure))
        .contains(
            "m1: its peer certificate /etc/kubernetes/pki/etcd/peer.crt (valid until"
                + " 2027-01-01T00:00:00Z) is not replaced by rotate-certificates",
            "m2: its healthcheck client certificate"
                + " /etc/kubernetes/pki/etcd/healthcheck-client.crt (valid until"
                + " 2027-01-02T00:00:00Z)",
            "cp-m1: its kube-apiserver's etcd client certificate"
                + " /etc/kubernetes/pki/apiserver-etcd-client.crt (valid until"
                + " 2027-01-03T00:00:00Z)");
    assertThat(recording.calls()).doesNotContain("TlsActivities.installCertificate");
  }

  @Test
  void issuedFromTheCaKeyKubeadmsOtherCertificatesAreRenewedEachAfterItsMemberAndApiserversLast() {
    cluster.startedWith(
        "m1",
        "--name=m1",
        "--cert-file=/pki/etcd/server.crt",
        "--key-file=/pki/etcd/server.key",
        "--listen-peer-urls=https://10.0.0.1:2380");
    certificates.alsoPresented(
        new PresentedCertificate(
            "m1", PresentedCertificate.PEER, "/pki/etcd/peer.crt", "2027-01-01T00:00:00Z"),
        new PresentedCertificate(
            "cp-m1",
            PresentedCertificate.APISERVER_CLIENT,
            "/pki/apiserver-etcd-client.crt",
            "2027-01-03T00:00:00Z"),
        new PresentedCertificate(
            "m2",
            PresentedCertificate.HEALTHCHECK_CLIENT,
            "/pki/etcd/healthcheck-client.crt",
            "2027-01-02T00:00:00Z"));

    ReconfigureTlsResult result =
        stub()
            .reconfigure(
                ReconfigureTlsRequest.renewCertificates(
                    "c", "/etc/ca.key", 90, RunbookOptions.defaults()));

    assertThat(certificates.renewed())
        .containsExactly(
            "m1:/pki/etcd/peer.crt",
            "m2:/pki/etcd/healthcheck-client.crt",
            "cp-m1:/pki/apiserver-etcd-client.crt");
    assertThat(result.renewedFiles()).containsKeys("cp-m1:/pki/apiserver-etcd-client.crt");
    assertThat(recording.calls())
        .containsSubsequence(
            "TlsActivities.installCertificate",
            "TlsActivities.renewCertificateFile",
            "TlsActivities.awaitServedPeerCertificate",
            "EtcdActivities.awaitMemberReady",
            "TlsActivities.installCertificate",
            "TlsActivities.renewCertificateFile",
            "EtcdActivities.awaitMemberReady",
            "TlsActivities.installCertificate",
            "TlsActivities.renewCertificateFile",
            "ApiServerActivities.awaitHealthy");
  }

  @Test
  void aClusterServingHttpIsRefusedNamingTheMember() {
    FakeCluster plain = new FakeCluster("c", MEMBERS, "3.5.16", "m1", List.of("3.5.16"));

    Throwable failure =
        workflowFailure(() -> stub(plain).reconfigure(request(false, "/etc/new-certs")));

    assertThat(Failures.rootMessage(failure))
        .contains("member m1 serves clients without TLS (no --cert-file and --key-file");
  }

  @Test
  void aDryRunChecksAndPlansWithoutInstallingAnything() {
    ReconfigureTlsResult result = stub().reconfigure(request(true, "/etc/new-certs"));

    assertThat(result.dryRun()).isTrue();
    assertThat(recording.calls()).contains("TlsActivities.checkCertificates");
    assertThat(recording.calls()).doesNotContain("TlsActivities.installCertificate");
  }

  private static FakeCluster tlsCluster() {
    FakeCluster cluster = new FakeCluster("c", MEMBERS, "3.5.16", "m1", List.of("3.5.16"));
    for (String m : MEMBERS) {
      cluster.startedWith(
          m, "--name=" + m, "--cert-file=/etc/etcd/pki/" + m + ".crt", "--key-file", "/k/" + m);
    }
    return cluster;
  }

  private static ReconfigureTlsRequest request(boolean dryRun, String dir) {
    return ReconfigureTlsRequest.rotateCertificates(
        "c", dir, RunbookOptions.defaults().withDryRun(dryRun).withMemberTimeoutSeconds(30));
  }

  private ReconfigureTlsWorkflow stub() {
    return stub(cluster);
  }

  private ReconfigureTlsWorkflow stub(FakeCluster etcd) {
    Worker worker = env.newWorker(QUEUE);
    worker.registerWorkflowImplementationTypes(ReconfigureTlsWorkflowImpl.class);
    recording =
        new RecordingActivities(
            certificates, etcd, new io.etcdrunbooks.workflows.testing.FakeControlPlane());
    recording.registerOn(worker);
    env.start();
    return env.getWorkflowClient()
        .newWorkflowStub(
            ReconfigureTlsWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(RunbookIds.changing("c"))
                .setTaskQueue(QUEUE)
                .build());
  }
}
