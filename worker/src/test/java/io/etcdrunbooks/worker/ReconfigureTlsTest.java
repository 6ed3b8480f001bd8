package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.activities.etcd.ClusterVersionReader;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.inventory.ServiceSpec;
import io.etcdrunbooks.testkit.ControlPlaneStandIns;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.testkit.TestCertificates;
import io.etcdrunbooks.workflows.activities.TlsActivities;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.tls.ReconfigureTlsRequest;
import io.etcdrunbooks.workflows.tls.ReconfigureTlsResult;
import io.temporal.client.WorkflowFailedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * ReconfigureTls rotate-certificates on real TLS clusters (client certificates required) with a
 * writer running: every member serves its new certificate, seen in a real handshake, without a
 * restart and without losing an acknowledged write; a certificate that does not cover its member is
 * refused before anything is touched. Its methods run side by side, each on its own sandbox and
 * certificates: they mostly wait on handshakes and members.
 */
@RealEtcd
@Execution(ExecutionMode.CONCURRENT)
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class ReconfigureTlsTest {

  private static final Duration NEW_VALIDITY = Duration.ofDays(400);

  @TempDir Path dir;

  @ParameterizedTest(name = "etcd {0}")
  @CsvSource({"3.4.23, plain", "3.5.30, plain", "3.5.30, static-pod", "3.6.16, plain"})
  void everyMemberServesItsNewCertificateWithoutARestartOrALostWrite(
      String version, String serviceKind) throws Exception {
    try (SandboxRunbooks runbooks =
        SandboxRunbooks.startWithTls(dir, version, serviceKind, UnaryOperator.identity())) {
      Path newCerts = newCertificates(runbooks, member -> List.of("127.0.0.1", "localhost"));
      Map<String, String> expected = new LinkedHashMap<>();
      for (MemberSpec m : runbooks.cluster().members()) {
        expected.put(m.name(), fingerprintOf(newCerts.resolve(m.name() + ".crt")));
      }
      Map<String, Long> pidsBefore = runbooks.pids();

      ReconfigureTlsResult result;
      try (AcknowledgedWriter writer =
          AcknowledgedWriter.start(runbooks.cluster(), runbooks.cluster().tls())) {
        result =
            runbooks
                .tlsStub()
                .reconfigure(
                    ReconfigureTlsRequest.rotateCertificates(
                        "sandbox", newCerts.toString(), RunbookOptions.defaults()));
        writer.stopAndCheckEveryAcknowledgedWrite(runbooks.cluster());
      }

      assertThat(result.rotated()).containsExactly("m1", "m2", "m3");
      Files.writeString(
          Path.of(
              "target",
              "recorded-rotate-certificates-" + version + "-" + serviceKind + "-history.json"),
          runbooks
              .client()
              .fetchHistory(
                  io.etcdrunbooks.workflows.tls.ReconfigureTlsWorkflow.workflowId("sandbox"))
              .toJson(true));
      assertThat(result.fingerprints()).isEqualTo(expected);
      assertThat(served(runbooks.cluster())).isEqualTo(expected);
      assertThat(result.notAfter().values())
          .allSatisfy(
              notAfter ->
                  assertThat(Instant.parse(notAfter))
                      .isAfter(Instant.now().plus(NEW_VALIDITY).minus(Duration.ofDays(1))));
      assertThat(runbooks.pids()).as("no member restarted").isEqualTo(pidsBefore);
      Path m1Cert = runbooks.sandbox.hostRoot("m1").resolve("etc/etcd/pki/server.crt");
      assertThat(m1Cert.resolveSibling("server.crt.before-" + result.rotationId())).exists();
      assertThat(m1Cert.resolveSibling("server.key.before-" + result.rotationId())).exists();
      assertThat(runbooks.etcd.checkConsistency(new ClusterRef("sandbox")).hashesEqual()).isTrue();
    }
  }

  @Test
  void certificatesIssuedFromTheCasKeyReplaceEveryMembersWithoutARestart() throws Exception {
    try (SandboxRunbooks runbooks = SandboxRunbooks.startWithTls(dir, "3.5.30")) {
      Path caKey = runbooks.sandbox.certificates().orElseThrow().authority().writeKey();
      Map<String, String> before = served(runbooks.cluster());
      Map<String, Long> pidsBefore = runbooks.pids();
      Map<String, Object> keyInodes = new LinkedHashMap<>();
      Map<String, String> keys = new LinkedHashMap<>();
      for (MemberSpec m : runbooks.cluster().members()) {
        Path key = runbooks.sandbox.hostRoot(m.name()).resolve("etc/etcd/pki/server.key");
        keyInodes.put(m.name(), Files.getAttribute(key, "unix:ino"));
        keys.put(m.name(), Files.readString(key));
      }

      ReconfigureTlsResult result =
          runbooks
              .tlsStub()
              .reconfigure(
                  ReconfigureTlsRequest.renewCertificates(
                      "sandbox", caKey.toString(), 90, RunbookOptions.defaults()));

      assertThat(result.rotated()).containsExactly("m1", "m2", "m3");
      Map<String, String> after = served(runbooks.cluster());
      assertThat(after).isEqualTo(result.fingerprints());
      assertThat(after.values())
          .doesNotContainAnyElementsOf(before.values())
          .doesNotHaveDuplicates();
      assertThat(result.notAfter().values())
          .allSatisfy(
              notAfter ->
                  assertThat(Instant.parse(notAfter))
                      .isBetween(
                          Instant.now().plus(Duration.ofDays(89)),
                          Instant.now().plus(Duration.ofDays(91))));
      assertThat(runbooks.pids()).isEqualTo(pidsBefore);
      Path m2Key = runbooks.sandbox.hostRoot("m2").resolve("etc/etcd/pki/server.key");
      assertThat(java.nio.file.Files.getPosixFilePermissions(m2Key))
          .isEqualTo(java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
      // each key kept, as kubeadm certs renew keeps it: only the certificate file was renamed, so
      // no handshake could read a certificate and a key that do not belong together
      for (MemberSpec m : runbooks.cluster().members()) {
        Path key = runbooks.sandbox.hostRoot(m.name()).resolve("etc/etcd/pki/server.key");
        assertThat(Files.getAttribute(key, "unix:ino"))
            .as(m.name())
            .isEqualTo(keyInodes.get(m.name()));
        assertThat(Files.readString(key)).as(m.name()).isEqualTo(keys.get(m.name()));
      }
    }
  }

  @Test
  void aCertificateThatDoesNotCoverItsMemberIsRefusedBeforeAnyFileChanges() throws Exception {
    try (SandboxRunbooks runbooks = SandboxRunbooks.startWithTls(dir, "3.5.30")) {
      Path newCerts =
          newCertificates(
              runbooks,
              member ->
                  member.equals("m2")
                      ? List.of("etcd-2.example")
                      : List.of("127.0.0.1", "localhost"));
      Map<String, String> before = served(runbooks.cluster());

      assertThatThrownBy(
              () ->
                  runbooks
                      .tlsStub()
                      .reconfigure(
                          ReconfigureTlsRequest.rotateCertificates(
                              "sandbox", newCerts.toString(), RunbookOptions.defaults())))
          .isInstanceOf(WorkflowFailedException.class)
          .satisfies(
              e -> {
                assertThat(Failures.rootType(e)).isEqualTo(FailureType.TlsRefused.name());
                assertThat(Failures.rootMessage(e))
                    .contains(
                        "refused, nothing was touched",
                        "member m2: the certificate in",
                        "does not cover 127.0.0.1")
                    .doesNotContain("member m1:", "BEGIN");
              });
      assertThat(served(runbooks.cluster())).isEqualTo(before);
    }
  }

  @Test
  void
      aMemberWhoseKeyBreaksMidRunGetsItsOldFilesBackWithTheMemberBeforeItAndTheClusterStaysHealthy()
          throws Exception {
    Path[] m2Key = new Path[1];
    try (SandboxRunbooks runbooks =
        SandboxRunbooks.startWithTls(dir, "3.5.30", real -> new KeyBreaker(real, m2Key))) {
      m2Key[0] = runbooks.sandbox.hostRoot("m2").resolve("etc/etcd/pki/server.key");
      Path newCerts = newCertificates(runbooks, member -> List.of("127.0.0.1", "localhost"));
      Map<String, String> before = served(runbooks.cluster());

      assertThatThrownBy(
              () ->
                  runbooks
                      .tlsStub()
                      .reconfigure(
                          ReconfigureTlsRequest.rotateCertificates(
                              "sandbox",
                              newCerts.toString(),
                              RunbookOptions.defaults().withMemberTimeoutSeconds(10))))
          .isInstanceOf(WorkflowFailedException.class)
          .satisfies(
              e -> {
                assertThat(Failures.rootType(e)).isEqualTo(FailureType.TlsRolledBack.name());
                assertThat(Failures.rootMessage(e))
                    .contains(
                        "member m2 did not take its new certificate",
                        "Old certificates put back: [m2: old certificate, m1: old certificate]")
                    .doesNotContain("BEGIN");
              });
      assertThat(served(runbooks.cluster())).isEqualTo(before);
      runbooks
          .state()
          .members()
          .forEach(m -> assertThat(m.healthy()).as("%s: %s", m.name(), m.errors()).isTrue());
    }
  }

  @Test
  void kubeadmsOtherCertificatesAreRefusedEachWithItsFileAndExpiryBeforeAnyFileChanges()
      throws Exception {
    TestCertificates.Issued peer =
        TestCertificates.authority(dir.resolve("peer-ca"), "peer-ca")
            .issue("peer", List.of("127.0.0.1"), Instant.now(), Duration.ofDays(30));
    try (SandboxRunbooks runbooks =
            SandboxRunbooks.startWithTls(
                dir.resolve("sandbox"),
                "3.5.30",
                ServiceSpec.STATIC_POD,
                Map.of(
                    "m2",
                    Map.of(
                        "ETCD_PEER_CERT_FILE", peer.cert().toString(),
                        "ETCD_PEER_KEY_FILE", peer.key().toString())));
        ControlPlaneStandIns apiServers = ControlPlaneStandIns.attach(runbooks.sandbox)) {
      TestCertificates.Material pki = runbooks.sandbox.certificates().orElseThrow();
      Path healthcheck =
          runbooks.sandbox.hostRoot("m1").resolve("etc/etcd/pki/healthcheck-client.crt");
      Files.copy(Path.of(pki.rsaClient().certFile()), healthcheck);
      Path newCerts = newCertificates(runbooks, member -> List.of("127.0.0.1", "localhost"));
      Map<String, String> before = served(runbooks.cluster());

      assertThatThrownBy(
              () ->
                  runbooks
                      .tlsStub()
                      .reconfigure(
                          ReconfigureTlsRequest.rotateCertificates(
                              "sandbox", newCerts.toString(), RunbookOptions.defaults())))
          .isInstanceOf(WorkflowFailedException.class)
          .satisfies(
              e -> {
                assertThat(Failures.rootType(e)).isEqualTo(FailureType.TlsRefused.name());
                String message = Failures.rootMessage(e);
                assertThat(message)
                    .contains(
                        "refused, nothing was touched",
                        "m2: its peer certificate %s (valid until %s)"
                            .formatted(peer.cert(), notAfter(peer.cert())),
                        "m1: its healthcheck client certificate %s (valid until %s)"
                            .formatted(healthcheck, notAfter(healthcheck)))
                    .doesNotContain("BEGIN");
                for (String host : apiServers.hosts()) {
                  Path client =
                      runbooks
                          .sandbox
                          .hostRoot(host.substring("cp-".length()))
                          .resolve("etc/kubernetes/pki/apiserver-etcd-client.crt");
                  assertThat(message)
                      .contains(
                          "%s: its kube-apiserver's etcd client certificate %s (valid until %s)"
                              .formatted(host, client, notAfter(client)));
                }
              });
      assertThat(served(runbooks.cluster())).isEqualTo(before);
    }
  }

  @Test
  void certificatesThatExpiredAreReplacedInEmergencyModeAndTheClusterHeals() throws Exception {
    try (SandboxRunbooks runbooks = SandboxRunbooks.startWithTls(dir, "3.5.30")) {
      TestCertificates.Authority ca = runbooks.sandbox.certificates().orElseThrow().authority();
      Instant expiry = Instant.now().plusSeconds(3);
      for (MemberSpec m : runbooks.cluster().members()) {
        TestCertificates.Issued shortLived =
            ca.issue(
                "short-" + m.name(),
                List.of("127.0.0.1", "localhost"),
                expiry.minus(Duration.ofSeconds(3)),
                Duration.ofSeconds(3));
        Path pki = runbooks.sandbox.hostRoot(m.name()).resolve("etc/etcd/pki");
        Files.copy(
            shortLived.key(),
            pki.resolve("server.key"),
            java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Files.copy(
            shortLived.cert(),
            pki.resolve("server.crt"),
            java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      }
      String m1 = runbooks.cluster().member("m1").clientUrl();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (true) { // until a new handshake (a new client: no kept connection) fails on expiry
        try {
          new ClusterVersionReader(runbooks.cluster()).serverCertificate(m1);
        } catch (java.io.IOException expired) {
          break;
        }
        assertThat(System.nanoTime()).as("m1's certificate expired").isLessThan(deadline);
        Thread.sleep(200);
      }
      Path caKey = ca.writeKey();
      ReconfigureTlsResult result =
          runbooks
              .tlsStub()
              .reconfigure(
                  ReconfigureTlsRequest.renewCertificates(
                          "sandbox",
                          caKey.toString(),
                          90,
                          RunbookOptions.defaults().withMemberTimeoutSeconds(30))
                      .inEmergency(true));

      assertThat(result.rotated()).containsExactly("m1", "m2", "m3");
      assertThat(served(runbooks.cluster())).isEqualTo(result.fingerprints());
      assertThat(result.notAfter().values())
          .allSatisfy(
              notAfter ->
                  assertThat(Instant.parse(notAfter))
                      .isAfter(Instant.now().plus(Duration.ofDays(89))));
      runbooks
          .state()
          .members()
          .forEach(m -> assertThat(m.healthy()).as("%s: %s", m.name(), m.errors()).isTrue());
      assertThat(
              runbooks
                  .client()
                  .fetchHistory(
                      io.etcdrunbooks.workflows.tls.ReconfigureTlsWorkflow.workflowId("sandbox"))
                  .toJson(false))
          .doesNotContain("PRIVATE KEY");
      ReconfigureTlsRequest emergency =
          ReconfigureTlsRequest.renewCertificates(
                  "sandbox", caKey.toString(), 90, RunbookOptions.defaults().withDryRun(true))
              .inEmergency(true);
      runbooks.tlsStub().reconfigure(emergency); // the plan says so
      assertThat(
              runbooks
                  .client()
                  .newWorkflowStub(
                      io.etcdrunbooks.workflows.tls.ReconfigureTlsWorkflow.class,
                      io.etcdrunbooks.workflows.tls.ReconfigureTlsWorkflow.workflowId("sandbox"))
                  .progress()
                  .message())
          .startsWith("EMERGENCY (members not checked for health: each is checked by a handshake");
    }
  }

  @Test
  void kubeadmsWholeSetIsRenewedFromTheCaKeyAndRenewedAgainInAnEmergencyAfterItExpired()
      throws Exception {
    try (SandboxRunbooks runbooks =
            SandboxRunbooks.startWithKubeadmPki(dir.resolve("sandbox"), "3.5.30", "static-pod");
        ControlPlaneStandIns apiServers = ControlPlaneStandIns.attach(runbooks.sandbox)) {
      TestCertificates.Authority ca = runbooks.sandbox.certificates().orElseThrow().authority();
      Path caKey = ca.writeKey();
      List<Path> set = kubeadmSet(runbooks, apiServers);
      Map<Path, X509Certificate> before = certificates(set);
      Map<Path, String> keys = keys(set);

      ReconfigureTlsResult renewed =
          runbooks
              .tlsStub()
              .reconfigure(
                  ReconfigureTlsRequest.renewCertificates(
                      "sandbox",
                      caKey.toString(),
                      90,
                      RunbookOptions.defaults().withMemberTimeoutSeconds(30)));

      assertThat(renewed.rotated()).containsExactly("m1", "m2", "m3");
      Files.writeString(
          Path.of("target", "recorded-rotate-certificates-3.5.30-kubeadm-pki-history.json"),
          runbooks
              .client()
              .fetchHistory(
                  io.etcdrunbooks.workflows.tls.ReconfigureTlsWorkflow.workflowId("sandbox"))
              .toJson(true));
      assertThat(renewed.renewedFiles()).hasSize(9); // 3 peer, 3 healthcheck, 3 apiserver client
      assertRenewedLike(before, certificates(set), Duration.ofDays(90));
      assertThat(keys(set)).as("every key kept").isEqualTo(keys);
      assertServedAndHealthy(runbooks, apiServers);

      // the whole set expires: each file replaced by a 3 s certificate like it, with a new key
      Map<Path, X509Certificate> shortLived = new LinkedHashMap<>();
      for (Path cert : set) {
        X509Certificate like = certificates(List.of(cert)).get(cert);
        TestCertificates.Issued issued =
            ca.issue(
                "short-" + Math.abs(cert.hashCode()),
                org.bouncycastle.asn1.x500.X500Name.getInstance(
                        like.getSubjectX500Principal().getEncoded())
                    .toString(),
                like.getSubjectAlternativeNames() == null
                    ? List.of()
                    : like.getSubjectAlternativeNames().stream()
                        .map(n -> n.get(1).toString())
                        .toList(),
                like.getExtendedKeyUsage().stream()
                    .map(
                        oid ->
                            org.bouncycastle.asn1.x509.KeyPurposeId.getInstance(
                                new org.bouncycastle.asn1.ASN1ObjectIdentifier(oid)))
                    .toList(),
                Instant.now(),
                Duration.ofSeconds(3));
        Path key = keyOf(cert);
        Files.copy(issued.key(), key, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Files.copy(issued.cert(), cert, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        shortLived.put(cert, certificates(List.of(cert)).get(cert));
      }
      String m1 = runbooks.cluster().member("m1").clientUrl();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (true) { // until a new handshake (a new client: no kept connection) fails on expiry
        try {
          new ClusterVersionReader(runbooks.cluster()).serverCertificate(m1);
        } catch (java.io.IOException expired) {
          break;
        }
        assertThat(System.nanoTime()).as("m1's certificate expired").isLessThan(deadline);
        Thread.sleep(200);
      }
      Map<Path, String> expiredKeys = keys(set);

      ReconfigureTlsResult emergency =
          runbooks
              .tlsStub()
              .reconfigure(
                  ReconfigureTlsRequest.renewCertificates(
                          "sandbox",
                          caKey.toString(),
                          90,
                          RunbookOptions.defaults().withMemberTimeoutSeconds(30))
                      .inEmergency(true));

      assertThat(emergency.rotated()).containsExactly("m1", "m2", "m3");
      assertThat(emergency.renewedFiles()).hasSize(9);
      assertRenewedLike(shortLived, certificates(set), Duration.ofDays(90));
      assertThat(keys(set)).as("every key kept, expired or not").isEqualTo(expiredKeys);
      assertServedAndHealthy(runbooks, apiServers);
    }
  }

  /**
   * kubeadm's set: each member's server, peer and healthcheck client certificate, each
   * control-plane host's apiserver-etcd-client.crt.
   */
  private static List<Path> kubeadmSet(SandboxRunbooks runbooks, ControlPlaneStandIns apiServers) {
    List<Path> set = new java.util.ArrayList<>();
    for (MemberSpec m : runbooks.cluster().members()) {
      Path pki = runbooks.sandbox.hostRoot(m.name()).resolve("etc/etcd/pki");
      for (String name : List.of("server", "peer", "healthcheck-client")) {
        set.add(pki.resolve(name + ".crt"));
      }
    }
    for (String host : apiServers.hosts()) {
      set.add(
          runbooks
              .sandbox
              .hostRoot(host.substring("cp-".length()))
              .resolve("etc/kubernetes/pki/apiserver-etcd-client.crt"));
    }
    return set;
  }

  private static Path keyOf(Path cert) {
    return cert.resolveSibling(cert.getFileName().toString().replace(".crt", ".key"));
  }

  private static Map<Path, X509Certificate> certificates(List<Path> files) throws Exception {
    Map<Path, X509Certificate> read = new LinkedHashMap<>();
    for (Path f : files) {
      try (var in = Files.newInputStream(f)) {
        read.put(
            f,
            (X509Certificate)
                java.security.cert.CertificateFactory.getInstance("X.509").generateCertificate(in));
      }
    }
    return read;
  }

  private static Map<Path, String> keys(List<Path> certs) throws Exception {
    Map<Path, String> keys = new LinkedHashMap<>();
    for (Path cert : certs) keys.put(keyOf(cert), Files.readString(keyOf(cert)));
    return keys;
  }

  /** Each file holds a new certificate like the old one: subject, names, usages, key, issuer. */
  private static void assertRenewedLike(
      Map<Path, X509Certificate> before, Map<Path, X509Certificate> after, Duration validity)
      throws Exception {
    for (var old : before.entrySet()) {
      X509Certificate now = after.get(old.getKey());
      X509Certificate was = old.getValue();
      assertThat(fingerprint(now)).as("%s renewed", old.getKey()).isNotEqualTo(fingerprint(was));
      assertThat(now.getSubjectX500Principal()).isEqualTo(was.getSubjectX500Principal());
      assertThat(names(now)).isEqualTo(names(was));
      assertThat(now.getExtendedKeyUsage()).isEqualTo(was.getExtendedKeyUsage());
      assertThat(now.getPublicKey()).isEqualTo(was.getPublicKey());
      assertThat(now.getIssuerX500Principal()).isEqualTo(was.getIssuerX500Principal());
      assertThat(now.getNotAfter().toInstant())
          .as("%s valid for the new days", old.getKey())
          .isAfter(Instant.now().plus(validity).minus(Duration.ofDays(1)));
    }
  }

  private static List<List<?>> names(X509Certificate certificate) throws Exception {
    var names = certificate.getSubjectAlternativeNames();
    return names == null ? List.of() : List.copyOf(names);
  }

  /**
   * Every member serves its server and peer certificate files in new handshakes and is healthy;
   * every kube-apiserver stand-in, which handshakes with its files, is healthy.
   */
  private static void assertServedAndHealthy(
      SandboxRunbooks runbooks, ControlPlaneStandIns apiServers) throws Exception {
    ClusterVersionReader reader = new ClusterVersionReader(runbooks.cluster());
    for (MemberSpec m : runbooks.cluster().members()) {
      Path pki = runbooks.sandbox.hostRoot(m.name()).resolve("etc/etcd/pki");
      assertThat(fingerprint(reader.serverCertificate(m.clientUrl()).orElseThrow()))
          .isEqualTo(fingerprintOf(pki.resolve("server.crt")));
      assertThat(fingerprint(reader.peerCertificate(m.peerUrl()).orElseThrow()))
          .as("%s presents its new peer certificate", m.name())
          .isEqualTo(fingerprintOf(pki.resolve("peer.crt")));
    }
    runbooks
        .state()
        .members()
        .forEach(m -> assertThat(m.healthy()).as("%s: %s", m.name(), m.errors()).isTrue());
    for (String host : apiServers.hosts()) {
      assertThat(HttpProbe.status(apiServers.standIn(host).healthUrl()))
          .as("%s handshakes with its etcd client certificate", host)
          .isEqualTo(200);
    }
  }

  private static String notAfter(Path certFile) throws Exception {
    return ((X509Certificate)
            java.security.cert.CertificateFactory.getInstance("X.509")
                .generateCertificate(Files.newInputStream(certFile)))
        .getNotAfter()
        .toInstant()
        .toString();
  }

  /**
   * The real TLS activities, except that once m2's new files are in place its key file is replaced
   * by a key of no certificate: etcd then fails every handshake with it.
   */
  private static final class KeyBreaker extends ForwardingTlsActivities {
    private final TlsActivities real;
    private final Path[] m2Key;

    KeyBreaker(TlsActivities real, Path[] m2Key) {
      super(real);
      this.real = real;
      this.m2Key = m2Key;
    }

    @Override
    public String installCertificate(InstallCertificateRequest request) {
      String fingerprint = real.installCertificate(request);
      if (request.member().equals("m2")) {
        try {
          java.security.KeyPairGenerator generator =
              java.security.KeyPairGenerator.getInstance("EC");
          generator.initialize(256);
          Files.writeString(
              m2Key[0],
              "-----BEGIN PRIVATE KEY-----\n"
                  + java.util.Base64.getMimeEncoder()
                      .encodeToString(generator.generateKeyPair().getPrivate().getEncoded())
                  + "\n-----END PRIVATE KEY-----\n");
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }
      return fingerprint;
    }
  }

  /**
   * New certificates from the sandbox's CA in {@code dir/new-certs}, as {@code <member>.crt} and
   * {@code .key}, each for the names given for its member.
   */
  private Path newCertificates(
      SandboxRunbooks runbooks, java.util.function.Function<String, List<String>> names)
      throws Exception {
    TestCertificates.Material pki = runbooks.sandbox.certificates().orElseThrow();
    Path newCerts = Files.createDirectories(dir.resolve("new-certs"));
    for (MemberSpec m : runbooks.cluster().members()) {
      TestCertificates.Issued issued =
          pki.authority().issue(m.name(), names.apply(m.name()), Instant.now(), NEW_VALIDITY);
      Files.move(issued.cert(), newCerts.resolve(m.name() + ".crt"));
      Files.move(issued.key(), newCerts.resolve(m.name() + ".key"));
    }
    return newCerts;
  }

  /** The SHA-256 fingerprint of the certificate each member presents in a new handshake. */
  private static Map<String, String> served(ClusterSpec cluster) throws Exception {
    ClusterVersionReader reader = new ClusterVersionReader(cluster);
    Map<String, String> served = new LinkedHashMap<>();
    for (MemberSpec m : cluster.members()) {
      served.put(m.name(), fingerprint(reader.serverCertificate(m.clientUrl()).orElseThrow()));
    }
    return served;
  }

  private static String fingerprintOf(Path certFile) throws Exception {
    return fingerprint(
        (X509Certificate)
            java.security.cert.CertificateFactory.getInstance("X.509")
                .generateCertificate(Files.newInputStream(certFile)));
  }

  private static String fingerprint(X509Certificate certificate) throws Exception {
    return HexFormat.of()
        .formatHex(MessageDigest.getInstance("SHA-256").digest(certificate.getEncoded()));
  }
}
