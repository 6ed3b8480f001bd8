package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.activities.etcd.EtcdClients;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.inventory.TlsSpec;
import io.etcdrunbooks.testkit.ControlPlaneStandIns;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.testkit.TestCertificates;
import io.etcdrunbooks.workflows.activities.TlsActivities;
import io.etcdrunbooks.workflows.activities.TlsActivities.PlaceCertificatesRequest;
import io.etcdrunbooks.workflows.activities.TlsActivities.PlacedCertificates;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.tls.EnableTls;
import io.etcdrunbooks.workflows.tls.ReconfigureTlsRequest;
import io.etcdrunbooks.workflows.tls.ReconfigureTlsResult;
import io.etcdrunbooks.workflows.tls.ReconfigureTlsWorkflow;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowFailedException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * ReconfigureTls enable on real http clusters with a writer running and kube-apiserver stand-ins
 * that make real TLS handshakes with the client certificate their manifests name, and a plain http
 * scraper the runbooks do not manage: the runbook holds before it cuts plain http off, naming the
 * scraper's address, and once approved every member serves only TLS on its client and peer URLs,
 * the inventory and the apiservers talk https, and no acknowledged write is lost. Its methods run
 * side by side, each on its own sandbox, certificates and ports (the scraper binds an ephemeral
 * port on its address, and the runbook counts only connections to its own members' ports).
 */
@RealEtcd
@Execution(ExecutionMode.CONCURRENT)
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class EnableTlsTest {

  /** The address of a client the runbooks do not manage (127.0.0.0/8 is all loopback). */
  private static final String UNMANAGED = "127.0.0.9";

  @TempDir Path dir;

  @ParameterizedTest(name = "etcd {0}")
  @ValueSource(strings = {"3.4.23", "3.5.30", "3.6.16"})
  void anHttpClusterEndsServingOnlyTlsOnClientAndPeerUrlsWithTheApiServersFollowing(String version)
      throws Exception {
    TestCertificates.Material material = TestCertificates.write(dir.resolve("worker-pki"));
    Path caKey = material.authority().writeKey();
    TlsSpec worker = material.client(false);
    try (SandboxRunbooks runbooks =
            SandboxRunbooks.start(dir.resolve("sandbox"), version, Map.of());
        ControlPlaneStandIns apiServers = ControlPlaneStandIns.attach(runbooks.sandbox)) {
      ClusterSpec before = runbooks.cluster();
      ReconfigureTlsResult result;
      try (AcknowledgedWriter writer = AcknowledgedWriter.start(before, worker);
          PlainHttpScraper scraper =
              PlainHttpScraper.start(UNMANAGED, before.member("m2").clientUrl())) {
        ReconfigureTlsWorkflow run = runbooks.tlsStub();
        CompletableFuture<ReconfigureTlsResult> enabled =
            WorkflowClient.execute(
                run::reconfigure,
                ReconfigureTlsRequest.enableIssued(
                    "sandbox",
                    caKey.toString(),
                    90,
                    EnableTls.both(worker.caFile(), worker.certFile(), worker.keyFile()),
                    RunbookOptions.defaults().withMemberTimeoutSeconds(60)));
        awaitHoldFor(run, enabled);
        assertThat(run.progress().message())
            .as("the hold names the client the runbook does not manage, and only it")
            .contains(
                "m2: ["
                    + UNMANAGED
                    + " -> :"
                    + URI.create(before.member("m2").clientUrl()).getPort())
            .doesNotContain("127.0.0.1 ->");
        for (MemberSpec m : before.members()) {
          assertThat(HttpProbe.answersPlainHttp(m.clientUrl()))
              .as("%s still serves plain http while the runbook holds", m.name())
              .isTrue();
        }
        assertThat(scraper.answers()).as("the scraper's requests answered over http").isPositive();
        run.approve("the scraper's owner");
        result = enabled.get(4, TimeUnit.MINUTES);
        writer.stopAndCheckEveryAcknowledgedWrite(runbooks.cluster());
      }

      assertThat(result.rotated()).containsExactlyInAnyOrder("m1", "m2", "m3");
      Files.writeString(
          Path.of("target", "recorded-enable-tls-" + version + "-history.json"),
          runbooks
              .client()
              .fetchHistory(ReconfigureTlsWorkflow.workflowId("sandbox"))
              .toJson(true));
      ClusterSpec after = runbooks.cluster();
      assertThat(after.tls().caFile()).isEqualTo(worker.caFile());
      assertThat(after.tls().certFile()).isEqualTo(worker.certFile());
      for (MemberSpec m : after.members()) {
        assertThat(m.clientUrl()).startsWith("https://");
        assertThat(m.peerUrl()).startsWith("https://");
        String plainClient = "http" + m.clientUrl().substring("https".length());
        String plainPeer = "http" + m.peerUrl().substring("https".length());
        assertThat(HttpProbe.answersPlainHttp(plainClient))
            .as("%s client URL over http", m.name())
            .isFalse();
        assertThat(HttpProbe.answersPlainHttp(plainPeer))
            .as("%s peer URL over http", m.name())
            .isFalse();
        Path key = runbooks.sandbox.hostRoot(m.name()).resolve("etc/etcd/pki/server.key");
        assertThat(Files.getPosixFilePermissions(key))
            .isEqualTo(PosixFilePermissions.fromString("rw-------"));
      }
      try (EtcdClients clients = new EtcdClients(after)) {
        var members =
            EtcdClients.await(
                    clients.cluster().getClusterClient().listMember(), "member list over TLS")
                .getMembers();
        assertThat(members).hasSize(3);
        for (var member : members) {
          assertThat(member.getPeerURIs()).allMatch(u -> u.getScheme().equals("https"));
          assertThat(member.getClientURIs()).allMatch(u -> u.getScheme().equals("https"));
        }
      }
      assertThat(runbooks.etcd.checkConsistency(new ClusterRef("sandbox")).hashesEqual()).isTrue();
      var certificates = runbooks.etcd.discover(new ClusterRef("sandbox")).certificates();
      assertThat(certificates.peerNotAfterByMember())
          .as("each member's peer certificate read in a handshake on its https peer URL")
          .containsOnlyKeys("m1", "m2", "m3")
          .isEqualTo(certificates.notAfterByMember());
      for (String host : apiServers.hosts()) {
        String manifest = Files.readString(apiServers.manifest(host));
        assertThat(manifest)
            .contains("--etcd-servers=https://")
            .contains("--etcd-cafile=")
            .contains("--etcd-certfile=")
            .contains("--etcd-keyfile=")
            .doesNotContain("--etcd-servers=http://");
        assertThat(HttpProbe.status(apiServers.standIn(host).healthUrl()))
            .as("%s healthy through its etcd client certificate", host)
            .isEqualTo(200);
      }
    }
  }

  @Test
  void aMemberWhoseKeyBreaksMidRunUndoesTheWholeRunAndTheClusterServesHttpAsBefore()
      throws Exception {
    TestCertificates.Material material = TestCertificates.write(dir.resolve("worker-pki"));
    Path caKey = material.authority().writeKey();
    TlsSpec worker = material.client(false);
    Path sandboxDir = dir.resolve("sandbox");
    Path m2Key = sandboxDir.resolve("hosts/m2/etc/etcd/pki/server.key");
    try (SandboxRunbooks runbooks =
            SandboxRunbooks.startOnHttp(sandboxDir, "3.5.30", real -> new KeyBreaker(real, m2Key));
        ControlPlaneStandIns apiServers = ControlPlaneStandIns.attach(runbooks.sandbox);
        ClusterProbe probe = new ClusterProbe(runbooks.cluster())) {
      probe.putManyUnordered("/registry/before/k", 100);
      ClusterSpec before = runbooks.cluster();
      Map<String, String> envBefore = envFiles(runbooks);
      Map<String, String> manifestsBefore = new java.util.TreeMap<>();
      for (String host : apiServers.hosts()) {
        manifestsBefore.put(host, Files.readString(apiServers.manifest(host)));
      }

      assertThatThrownBy(
              () ->
                  runbooks
                      .tlsStub()
                      .reconfigure(
                          ReconfigureTlsRequest.enableIssued(
                              "sandbox",
                              caKey.toString(),
                              90,
                              EnableTls.both(worker.caFile(), worker.certFile(), worker.keyFile()),
                              RunbookOptions.defaults().withMemberTimeoutSeconds(20))))
          .isInstanceOf(WorkflowFailedException.class)
          .satisfies(
              e -> {
                String message = Failures.rootMessage(e);
                assertThat(message).contains("m2 did not take TLS", "Every change was undone");
                assertThat(Failures.rootType(e)).isEqualTo(FailureType.TlsRolledBack.name());
              });

      assertThat(runbooks.cluster()).as("the inventory as before").isEqualTo(before);
      assertThat(envFiles(runbooks)).as("every member's flags as before").isEqualTo(envBefore);
      for (String host : apiServers.hosts()) {
        assertThat(Files.readString(apiServers.manifest(host)))
            .isEqualTo(manifestsBefore.get(host));
      }
      assertThat(m2Key).doesNotExist();
      for (MemberSpec m : before.members()) {
        assertThat(HttpProbe.answersPlainHttp(m.clientUrl()))
            .as("%s serves http", m.name())
            .isTrue();
      }
      assertThat(probe.dump(0).keySet().stream().filter(k -> k.startsWith("/registry/before/")))
          .hasSize(100);
      assertThat(runbooks.etcd.checkConsistency(new ClusterRef("sandbox")).hashesEqual()).isTrue();
    }
  }

  @Test
  void serverOnlyCertificatesForPeersAndAMissingWorkerKeyAreRefusedBeforeAnythingIsTouched()
      throws Exception {
    TestCertificates.Material material = TestCertificates.write(dir.resolve("worker-pki"));
    TlsSpec worker = material.client(false);
    Path certs = Files.createDirectories(dir.resolve("new-certs"));
    try (SandboxRunbooks runbooks =
        SandboxRunbooks.startOnHttp(
            dir.resolve("sandbox"), "3.5.30", java.util.function.UnaryOperator.identity())) {
      for (MemberSpec m : runbooks.cluster().members()) {
        // serverAuth only, as a server certificate is usually issued
        TestCertificates.Issued issued =
            material
                .authority()
                .issue(
                    m.name(), List.of("127.0.0.1"), java.time.Instant.now(), Duration.ofDays(90));
        Files.move(issued.cert(), certs.resolve(m.name() + ".crt"));
        Files.move(issued.key(), certs.resolve(m.name() + ".key"));
      }
      Map<String, String> envBefore = envFiles(runbooks);
      ClusterSpec before = runbooks.cluster();

      assertThatThrownBy(
              () ->
                  runbooks
                      .tlsStub()
                      .reconfigure(
                          ReconfigureTlsRequest.enable(
                              "sandbox",
                              certs.toString(),
                              EnableTls.both(
                                  worker.caFile(),
                                  worker.certFile(),
                                  dir.resolve("no-such.key").toString()),
                              RunbookOptions.defaults())))
          .isInstanceOf(WorkflowFailedException.class)
          .satisfies(
              e -> {
                assertThat(Failures.rootType(e)).isEqualTo(FailureType.TlsRefused.name());
                assertThat(Failures.rootMessage(e))
                    .contains(
                        "member m1: " + certs.resolve("m1.crt") + " does not allow client",
                        "member m3: ",
                        "the worker's client certificate",
                        "no-such.key");
              });
      assertThat(envFiles(runbooks)).isEqualTo(envBefore);
      assertThat(runbooks.cluster()).isEqualTo(before);
      assertThat(runbooks.sandbox.hostRoot("m1").resolve("etc/etcd/pki")).doesNotExist();
    }
  }

  /** Waits, bounded, until the run holds for an approval; fails when it ends without holding. */
  private static void awaitHoldFor(
      ReconfigureTlsWorkflow run, CompletableFuture<ReconfigureTlsResult> enabled)
      throws Exception {
    java.time.Instant deadline = java.time.Instant.now().plus(Duration.ofMinutes(3));
    while (true) {
      assertThat(enabled)
          .as("the run holds for the client at %s before cutting plain http", UNMANAGED)
          .isNotDone();
      try {
        if (run.progress().phase() == Phase.AWAITING_APPROVAL) return;
      } catch (io.temporal.client.WorkflowException notStartedYet) {
        // asked again below
      }
      assertThat(java.time.Instant.now()).as("progress %s", run.progress()).isBefore(deadline);
      TimeUnit.MILLISECONDS.sleep(200);
    }
  }

  private static Map<String, String> envFiles(SandboxRunbooks runbooks) throws Exception {
    Map<String, String> env = new java.util.TreeMap<>();
    for (MemberSpec m : runbooks.cluster().members()) {
      env.put(m.name(), Files.readString(Path.of(m.serviceDir(), "etcd.env")));
    }
    return env;
  }

  /**
   * The real TLS activities, except that once m2's files are placed its key is replaced by a key of
   * no certificate: etcd then cannot serve TLS with it.
   */
  private static final class KeyBreaker extends ForwardingTlsActivities {
    private final TlsActivities real;
    private final Path m2Key;

    KeyBreaker(TlsActivities real, Path m2Key) {
      super(real);
      this.real = real;
      this.m2Key = m2Key;
    }

    @Override
    public PlacedCertificates placeCertificates(PlaceCertificatesRequest request) {
      PlacedCertificates placed = real.placeCertificates(request);
      if ("m2".equals(request.member())) {
        try {
          java.security.KeyPairGenerator generator =
              java.security.KeyPairGenerator.getInstance("EC");
          generator.initialize(256);
          Files.writeString(
              m2Key,
              "-----BEGIN PRIVATE KEY-----\n"
                  + java.util.Base64.getMimeEncoder()
                      .encodeToString(generator.generateKeyPair().getPrivate().getEncoded())
                  + "\n-----END PRIVATE KEY-----\n");
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }
      return placed;
    }
  }
}
