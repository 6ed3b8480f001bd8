package io.etcdrunbooks.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.activities.etcd.TlsMaterial;
import io.etcdrunbooks.inventory.InventoryLoader;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.inventory.ServiceSpec;
import java.io.IOException;
import java.net.SocketException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@RealEtcd
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class SandboxTest {

  @TempDir Path tmp;

  @Test
  void threeMembersOn3_4ComeUpHealthyWithTheirOwnProcesses() throws Exception {
    Sandbox sandbox;
    List<Long> pids;
    try (Sandbox s =
        Sandbox.create(
            new SandboxSpec(tmp.resolve("sb"), "sandbox", 3, "3.4.23"), EtcdReleases.store())) {
      sandbox = s;
      pids = List.of(s.pidOf("m1"), s.pidOf("m2"), s.pidOf("m3"));
      assertThat(pids).allMatch(pid -> pid > 0).doesNotHaveDuplicates();
      assertThat(s.cluster().members())
          .extracting(MemberSpec::name)
          .containsExactly("m1", "m2", "m3");
      assertThat(InventoryLoader.load(s.inventoryFile()).cluster("sandbox")).isEqualTo(s.cluster());
      assertThat(s.inventory().releases().localDir())
          .isEqualTo(EtcdReleases.dir().toAbsolutePath().toString());
      for (MemberSpec m : s.cluster().members()) {
        assertThat(Path.of(m.installDir(), "current")).isSymbolicLink();
        assertThat(Files.readSymbolicLink(Path.of(m.installDir(), "current")))
            .hasToString("versions/3.4.23");
        assertThat(Path.of(m.dataDir(), "member")).isDirectory();
      }
      assertThat(s.hostRoot("m2").resolve("etc/etcd/etcd.env"))
          .content()
          .contains("ETCD_NAME=m2", "ETCD_INITIAL_CLUSTER_STATE=new");
    }
    assertThat(List.of(sandbox.pidOf("m1"), sandbox.pidOf("m2"), sandbox.pidOf("m3")))
        .containsOnly(-1L);
    sandbox.close(); // idempotent
  }

  @Test
  void oneMemberOn3_3ComesUpHealthy() {
    try (Sandbox s =
        Sandbox.create(
            new SandboxSpec(tmp.resolve("old"), "old", 1, "3.3.25"), EtcdReleases.store())) {
      assertThat(s.pidOf("m1")).isPositive();
      s.kill("m1");
      assertThat(s.pidOf("m1")).isEqualTo(-1);
    }
  }

  @ParameterizedTest(name = "{0} members")
  @ValueSource(strings = {ServiceSpec.PLAIN, ServiceSpec.STATIC_POD})
  void aTlsSandboxAnswersOnlyClientsWithACertificateOfItsCa(String serviceKind) throws Exception {
    SandboxSpec spec =
        new SandboxSpec(
                tmp.resolve("tls-" + serviceKind), "secure", 1, "3.5.30", Map.of(), serviceKind)
            .withTls(true);
    try (Sandbox s = Sandbox.create(spec, EtcdReleases.store())) {
      TestCertificates.Material pki = s.certificates().orElseThrow();
      assertThat(s.cluster().tls()).isEqualTo(pki.rsaClient());
      URI health = URI.create(s.cluster().member("m1").clientUrl() + "/health");
      assertThat(health.getScheme()).isEqualTo("https");

      HttpClient withCertificate =
          HttpClient.newBuilder().sslContext(TlsMaterial.load(pki.ecClient()).sslContext()).build();
      assertThat(
              withCertificate
                  .send(
                      HttpRequest.newBuilder(health).build(), HttpResponse.BodyHandlers.ofString())
                  .body())
          .contains("\"health\":\"true\"");

      SSLContext trustOnly = SSLContext.getInstance("TLS");
      KeyStore ca = KeyStore.getInstance(KeyStore.getDefaultType());
      ca.load(null, null);
      try (var in = Files.newInputStream(pki.caFile())) {
        ca.setCertificateEntry(
            "ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
      }
      TrustManagerFactory trust =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      trust.init(ca);
      trustOnly.init(null, trust.getTrustManagers(), null);
      assertThatThrownBy(() -> healthOverRawTls(trustOnly, health))
          .as("etcd requires a client certificate")
          .isInstanceOfAny(SSLException.class, SocketException.class);
    }
  }

  /**
   * Under TLS 1.3 the client's handshake ends before the server reads its (empty) certificate, so
   * the refusal arrives as an alert on the first read. java.net.http can wait for that read without
   * bound; a plain socket with a read timeout cannot, and a timeout (SocketTimeoutException) is
   * neither of the expected types, so it fails the test.
   */
  private static String healthOverRawTls(SSLContext context, URI health) throws IOException {
    try (SSLSocket socket =
        (SSLSocket) context.getSocketFactory().createSocket(health.getHost(), health.getPort())) {
      socket.setSoTimeout(10_000);
      socket.startHandshake();
      String request =
          "GET /health HTTP/1.1\r\nHost: " + health.getHost() + "\r\nConnection: close\r\n\r\n";
      socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
      socket.getOutputStream().flush();
      return new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
    }
  }
}
