package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.inventory.TlsSpec;
import io.etcdrunbooks.testkit.Ports;
import io.etcdrunbooks.testkit.TestCertificates;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.ClientAuth;
import io.temporal.api.workflowservice.v1.GetSystemInfoRequest;
import io.temporal.internal.testservice.TestServicesStarter;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.io.FileReader;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.PrivateKey;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The connections users need, each against a TLS frontend serving Temporal's API (the Java test
 * server's services behind netty with a certificate of a CA of the test's own): an API key over TLS
 * without a client certificate (Temporal Cloud's way), sent as a bearer token; mutual TLS; and the
 * settings refused before anything connects. (temporal server start-dev serves no TLS.)
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class TemporalConnectionTest {

  @TempDir Path dir;

  private TestCertificates.Authority ca;
  private TestServicesStarter services;
  private final Queue<String> authorizations = new ConcurrentLinkedQueue<>();

  @BeforeEach
  void authority() throws Exception {
    ca = TestCertificates.authority(dir.resolve("ca"), "temporal-test-ca");
    services = new TestServicesStarter(true, 0);
  }

  @AfterEach
  void stopServices() {
    services.close();
  }

  @Test
  void anApiKeyTurnsTlsOnWithoutAClientCertificateAndGoesAsABearerToken() throws Exception {
    Server server = tlsFrontend(false);
    try {
      TemporalConfig config = toFrontend("the-api-key", null, null, null);

      answers(config, server);

      assertThat(authorizations).contains("Bearer the-api-key");
    } finally {
      server.shutdownNow();
    }
  }

  @Test
  void aClientCertificateIsPresentedWhereTheFrontendAsksForOne() throws Exception {
    Server server = tlsFrontend(true);
    try {
      TlsSpec client = ca.issueClient("worker");
      TemporalConfig config =
          toFrontend(null, null, client.certFile(), pkcs8(Path.of(client.keyFile())).toString());

      answers(config, server);

      assertThat(authorizations).isEmpty();
      TemporalConfig withoutCertificate = toFrontend(null, "true", null, null);
      assertThatThrownBy(() -> answers(withoutCertificate, server, 2))
          .as("the frontend asks for a client certificate")
          .isInstanceOf(RuntimeException.class);
    } finally {
      server.shutdownNow();
    }
  }

  @Test
  void anApiKeyFileOthersCanReadIsRefusedNamingTheFileNotTheKey() throws Exception {
    Path keyFile = Files.writeString(dir.resolve("api-key"), "secret-key-value\n");
    Files.setPosixFilePermissions(keyFile, PosixFilePermissions.fromString("rw-r--r--"));
    TemporalConfig config =
        new TemporalConfig(null, "default", null, keyFile.toString(), null, "auto");

    assertThatThrownBy(() -> TemporalConnection.options(config, "127.0.0.1:7233"))
        .hasMessageContaining(keyFile.toString())
        .hasMessageNotContaining("secret-key-value");

    Files.setPosixFilePermissions(keyFile, PosixFilePermissions.fromString("rw-------"));
    TemporalConfig both =
        new TemporalConfig(null, "default", "x", keyFile.toString(), null, "auto");
    assertThatThrownBy(() -> TemporalConnection.options(both, "127.0.0.1:7233"))
        .hasMessageContaining("set one");
    TemporalConfig badSwitch =
        new TemporalConfig(
            null,
            "default",
            null,
            null,
            new TemporalConfig.Tls("yes", null, null, null, null),
            "auto");
    assertThatThrownBy(() -> TemporalConnection.options(badSwitch, "127.0.0.1:7233"))
        .hasMessageContaining("TEMPORAL_TLS", "'yes'");
  }

  /** The settings that reach the test's frontend: its CA and its name, and what the test gives. */
  private TemporalConfig toFrontend(
      String apiKey, String tlsEnabled, String certFile, String keyFile) {
    return new TemporalConfig(
        null,
        "default",
        apiKey,
        null,
        new TemporalConfig.Tls(
            tlsEnabled, certFile, keyFile, ca.caFile().toString(), "frontend.temporal.test"),
        "auto");
  }

  private void answers(TemporalConfig config, Server server) {
    answers(config, server, 10);
  }

  private void answers(TemporalConfig config, Server server, int seconds) {
    WorkflowServiceStubs stubs =
        WorkflowServiceStubs.newServiceStubs(
            TemporalConnection.options(config, "127.0.0.1:" + server.getPort()).build());
    try {
      assertThat(
              stubs
                  .blockingStub()
                  .withDeadlineAfter(seconds, TimeUnit.SECONDS)
                  .getSystemInfo(GetSystemInfoRequest.getDefaultInstance()))
          .isNotNull();
    } finally {
      stubs.shutdownNow();
    }
  }

  /** Temporal's API over TLS on 127.0.0.1, recording each call's authorization header. */
  private Server tlsFrontend(boolean requireClientCertificate) throws Exception {
    TestCertificates.Issued certificate =
        ca.issue(
            "frontend",
            List.of("frontend.temporal.test"),
            Instant.now(),
            TestCertificates.VALIDITY);
    var tls =
        GrpcSslContexts.forServer(certificate.cert().toFile(), pkcs8(certificate.key()).toFile());
    if (requireClientCertificate) {
      tls.trustManager(ca.caFile().toFile()).clientAuth(ClientAuth.REQUIRE);
    }
    NettyServerBuilder builder =
        NettyServerBuilder.forAddress(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), Ports.free()))
            .sslContext(tls.build());
    ServerInterceptor recorder =
        new ServerInterceptor() {
          @Override
          public <Q, A> ServerCall.Listener<Q> interceptCall(
              ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
            String authorization =
                headers.get(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER));
            if (authorization != null) authorizations.add(authorization);
            return next.startCall(call, headers);
          }
        };
    for (io.grpc.BindableService service : services.getServices()) {
      builder.addService(ServerInterceptors.intercept(service, recorder));
    }
    return builder.build().start();
  }

  /** The same key as PKCS#8 PEM (netty's and the product's form), mode 0600. */
  private Path pkcs8(Path pem) throws IOException {
    Object parsed;
    try (PEMParser parser = new PEMParser(new FileReader(pem.toFile()))) {
      parsed = parser.readObject();
    }
    JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
    PrivateKey key =
        parsed instanceof PEMKeyPair pair
            ? converter.getKeyPair(pair).getPrivate()
            : converter.getPrivateKey((org.bouncycastle.asn1.pkcs.PrivateKeyInfo) parsed);
    Path out = pem.resolveSibling(pem.getFileName() + ".pkcs8");
    Files.deleteIfExists(out);
    Files.createFile(
        out, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(
        out,
        "-----BEGIN PRIVATE KEY-----\n"
            + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(key.getEncoded())
            + "\n-----END PRIVATE KEY-----\n");
    return out;
  }
}
