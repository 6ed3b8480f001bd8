package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.api.testing.TestTokens;
import io.etcdrunbooks.testkit.Ports;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The API with TLS from configuration: a key store made with the JDK's keytool, HTTPS on the
 * configured port, a client trusting that certificate gets through (token checks included), one
 * trusting only the JVM's CAs is refused.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ApiTlsTest {

  @TempDir Path dir;

  @Test
  void theApiServesHttpsWithTheConfiguredKeyStore() throws Exception {
    Path keyStore = dir.resolve("api.p12");
    String password = "pw-" + UUID.randomUUID();
    Process keytool =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair",
                "-alias",
                "api",
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-validity",
                "2",
                "-dname",
                "CN=localhost",
                "-ext",
                "SAN=ip:127.0.0.1,dns:localhost",
                "-storetype",
                "PKCS12",
                "-keystore",
                keyStore.toString(),
                "-storepass",
                password,
                "-keypass",
                password)
            .redirectErrorStream(true)
            .start();
    assertThat(keytool.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(keytool.exitValue())
        .as(new String(keytool.getInputStream().readAllBytes()))
        .isZero();
    TestTokens.Token viewer = TestTokens.Token.of("dashboard", "viewer");
    Path tokens = TestTokens.write(dir.resolve("api-tokens.yaml"), viewer);
    int tlsPort = Ports.free();

    try (ApplicationContext context =
        Main.start(
            List.of("api"),
            Map.<String, Object>ofEntries(
                Map.entry("runbooks.api.tokens-file", tokens.toString()),
                Map.entry("runbooks.inventory", dir.resolve("inventory.yaml").toString()),
                Map.entry("runbooks.task-queue", "etcd-runbooks-tls-test"),
                Map.entry("temporal.address", ""),
                Map.entry("temporal.embedded-port", Ports.free()),
                Map.entry("micronaut.server.port", Ports.free()),
                Map.entry("micronaut.server.ssl.enabled", true),
                Map.entry("micronaut.server.ssl.port", tlsPort),
                Map.entry("micronaut.server.ssl.key-store.path", "file:" + keyStore),
                Map.entry("micronaut.server.ssl.key-store.password", password),
                Map.entry("micronaut.server.ssl.key-store.type", "PKCS12")))) {
      EmbeddedServer server = context.getBean(EmbeddedServer.class);
      assertThat(server.getScheme()).isEqualTo("https");
      assertThat(server.getPort()).isEqualTo(tlsPort);
      URI base = URI.create("https://127.0.0.1:" + tlsPort);

      HttpClient trusting =
          HttpClient.newBuilder()
              .sslContext(trusting(keyStore, password))
              .connectTimeout(Duration.ofSeconds(5))
              .build();
      HttpResponse<String> health =
          trusting.send(
              HttpRequest.newBuilder(base.resolve("/health")).build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
      HttpResponse<String> anonymous =
          trusting.send(
              HttpRequest.newBuilder(base.resolve("/api/v1/runbooks/no-such")).build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(anonymous.statusCode()).isEqualTo(401);
      HttpResponse<String> authorized =
          trusting.send(
              HttpRequest.newBuilder(base.resolve("/api/v1/runbooks/no-such"))
                  .header("Authorization", viewer.bearer())
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(authorized.statusCode()).as(authorized.body()).isEqualTo(404);

      HttpClient jvmDefaults =
          HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
      assertThatThrownBy(
              () ->
                  jvmDefaults.send(
                      HttpRequest.newBuilder(base.resolve("/health")).build(),
                      HttpResponse.BodyHandlers.ofString()))
          .isInstanceOf(SSLHandshakeException.class);
    }
  }

  private static SSLContext trusting(Path keyStore, String password) throws Exception {
    KeyStore store = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(keyStore)) {
      store.load(in, password.toCharArray());
    }
    TrustManagerFactory trust =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trust.init(store);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, trust.getTrustManagers(), null);
    return context;
  }
}
