package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.activities.etcd.ClusterVersionReader;
import io.etcdrunbooks.activities.etcd.EtcdClients;
import io.etcdrunbooks.activities.etcd.TlsMaterial;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.inventory.ServiceSpec;
import io.etcdrunbooks.inventory.TlsSpec;
import io.etcdrunbooks.testkit.ControlPlaneStandIns;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.testkit.TestCertificates;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.tls.EnableTls;
import io.etcdrunbooks.workflows.tls.ReconfigureTlsRequest;
import io.etcdrunbooks.workflows.tls.ReconfigureTlsWorkflow;
import io.etcdrunbooks.workflows.tls.RotateCa;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * ReconfigureTls rotate-ca on a real TLS cluster (client certificates required) with kube-apiserver
 * stand-ins that handshake with the files their manifests name: afterwards every member, apiserver
 * and the worker work with the new CA alone, and the old CA's client certificate and trust no
 * longer do. On 3.5.30 the members have kubeadm's own peer (on https peer URLs) and healthcheck
 * client certificates too, which are issued from the new CA with the rest. Its methods run side by
 * side, each on its own sandbox and certificates: they mostly wait on members' restarts.
 */
@RealEtcd
@Execution(ExecutionMode.CONCURRENT)
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class RotateCaTest {

  @TempDir Path dir;

  @ParameterizedTest(name = "etcd {0}, kubeadm's peer and healthcheck client certificates: {1}")
  @CsvSource({"3.4.23, false", "3.5.30, true", "3.6.16, false"})
  void everyMemberApiServerAndTheWorkerEndOnTheNewCaAloneWithEveryKey(
      String version, boolean kubeadmPki) throws Exception {
    TestCertificates.Authority newCa = TestCertificates.authority(dir.resolve("new-ca"), "new-ca");
    TlsSpec newWorker = newCa.issueClient("worker");
    try (SandboxRunbooks runbooks =
            kubeadmPki
                ? SandboxRunbooks.startWithKubeadmPki(
                    dir.resolve("sandbox"), version, ServiceSpec.PLAIN)
                : SandboxRunbooks.startWithTls(dir.resolve("sandbox"), version);
        ControlPlaneStandIns apiServers = ControlPlaneStandIns.attach(runbooks.sandbox)) {
      ClusterSpec before = runbooks.cluster();
      try (ClusterProbe probe = new ClusterProbe(before)) {
        probe.putManyUnordered("/registry/before/k", 200);
      }
      for (String host : apiServers.hosts()) {
        assertThat(HttpProbe.status(apiServers.standIn(host).healthUrl()))
            .as("%s on the old CA", host)
            .isEqualTo(200);
      }

      runbooks
          .tlsStub()
          .reconfigure(
              ReconfigureTlsRequest.rotateCa(
                  "sandbox",
                  newCa.writeKey().toString(),
                  90,
                  new RotateCa(
                      newCa.caFile().toString(), newWorker.certFile(), newWorker.keyFile()),
                  RunbookOptions.defaults().withMemberTimeoutSeconds(60)));

      Files.writeString(
          Path.of("target", "recorded-rotate-ca-" + version + "-history.json"),
          runbooks
              .client()
              .fetchHistory(ReconfigureTlsWorkflow.workflowId("sandbox"))
              .toJson(true));
      ClusterSpec after = runbooks.cluster();
      assertThat(after.tls().caFile()).isEqualTo(newCa.caFile().toString());
      assertThat(after.tls().certFile()).isEqualTo(newWorker.certFile());
      try (ClusterProbe probe = new ClusterProbe(after)) {
        assertThat(probe.dump(0).keySet().stream().filter(k -> k.startsWith("/registry/before/")))
            .as("every key, read with the new CA alone")
            .hasSize(200);
      }
      assertThat(runbooks.etcd.checkConsistency(new ClusterRef("sandbox")).hashesEqual()).isTrue();
      X509Certificate ca = (X509Certificate) TlsMaterial.readCertificates(newCa.caFile()).get(0);
      ClusterVersionReader reader = new ClusterVersionReader(after);
      for (MemberSpec m : after.members()) {
        X509Certificate served = reader.serverCertificate(m.clientUrl()).orElseThrow();
        assertThat(served.getIssuerX500Principal()).isEqualTo(ca.getSubjectX500Principal());
        if (!kubeadmPki) continue;
        // its own peer certificate from the new CA, which its peers alone trust now
        assertThat(reader.peerCertificate(m.peerUrl()).orElseThrow().getIssuerX500Principal())
            .as("%s's peer certificate", m.name())
            .isEqualTo(ca.getSubjectX500Principal());
        assertThat(Files.readString(Path.of(m.serviceDir(), "etcd.env")))
            .containsPattern("ETCD_PEER_TRUSTED_CA_FILE=.*-new\\.crt");
        Path healthcheck =
            runbooks.sandbox.hostRoot(m.name()).resolve("etc/etcd/pki/healthcheck-client.crt");
        assertThat(
                ((X509Certificate) TlsMaterial.readCertificates(healthcheck).get(0))
                    .getIssuerX500Principal())
            .as("%s's healthcheck client certificate", m.name())
            .isEqualTo(ca.getSubjectX500Principal());
      }
      // the old client certificate, and the old CA as trust, no longer work
      try (EtcdClients old = new EtcdClients(after.withTls(before.tls()))) {
        assertThatThrownBy(
                () ->
                    EtcdClients.await(
                        old.cluster().getClusterClient().listMember(),
                        "member list with the old CA"))
            .hasMessageContaining("member list with the old CA");
      }
      for (String host : apiServers.hosts()) {
        String manifest = Files.readString(apiServers.manifest(host));
        assertThat(manifest).contains("-new.crt").contains("ca-rotation-");
        assertThat(HttpProbe.status(apiServers.standIn(host).healthUrl()))
            .as("%s on the new CA alone", host)
            .isEqualTo(200);
      }
    }
  }

  @Test
  void aClusterThatTheRunbookMovedToTlsOnItsPeersTooMovesToANewCa() throws Exception {
    TestCertificates.Material old = TestCertificates.write(dir.resolve("old-ca"));
    TlsSpec oldWorker = old.client(false);
    TestCertificates.Authority newCa = TestCertificates.authority(dir.resolve("new-ca"), "new-ca");
    TlsSpec newWorker = newCa.issueClient("worker");
    try (SandboxRunbooks runbooks =
            SandboxRunbooks.startOnHttp(
                dir.resolve("sandbox"), "3.5.30", java.util.function.UnaryOperator.identity());
        ClusterProbe probe = new ClusterProbe(runbooks.cluster())) {
      probe.putManyUnordered("/registry/before/k", 100);
      runbooks
          .tlsStub()
          .reconfigure(
              ReconfigureTlsRequest.enableIssued(
                  "sandbox",
                  old.authority().writeKey().toString(),
                  90,
                  EnableTls.both(oldWorker.caFile(), oldWorker.certFile(), oldWorker.keyFile()),
                  RunbookOptions.defaults().withMemberTimeoutSeconds(60)));

      runbooks
          .tlsStub()
          .reconfigure(
              ReconfigureTlsRequest.rotateCa(
                  "sandbox",
                  newCa.writeKey().toString(),
                  90,
                  new RotateCa(
                      newCa.caFile().toString(), newWorker.certFile(), newWorker.keyFile()),
                  RunbookOptions.defaults().withMemberTimeoutSeconds(60)));

      ClusterSpec after = runbooks.cluster();
      assertThat(after.tls().caFile()).isEqualTo(newCa.caFile().toString());
      for (MemberSpec m : after.members()) {
        assertThat(m.peerUrl()).startsWith("https://");
        Path env = Path.of(m.serviceDir(), "etcd.env");
        // peers trust the new CA alone: they have handshaken with each other's new certificates
        assertThat(Files.readString(env))
            .containsPattern("ETCD_PEER_TRUSTED_CA_FILE=.*-new\\.crt")
            .containsPattern("ETCD_TRUSTED_CA_FILE=.*-new\\.crt");
      }
      try (ClusterProbe newTrust = new ClusterProbe(after)) {
        assertThat(
                newTrust.dump(0).keySet().stream().filter(k -> k.startsWith("/registry/before/")))
            .hasSize(100);
        assertThat(newTrust.hashKvByMember(0).values().stream().distinct()).hasSize(1);
      }
      assertThat(runbooks.etcd.checkConsistency(new ClusterRef("sandbox")).hashesEqual()).isTrue();
    }
  }
}
