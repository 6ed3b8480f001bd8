package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdrunbooks.api.UnexpectedErrorHandler;
import io.etcdrunbooks.api.testing.TestTokens;
import io.etcdrunbooks.testkit.Ports;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.LoggerFactory;

/**
 * A process with the api role loads its secrets (codec keys, Temporal client key) before it serves
 * anything, and an exception no handler expects is answered with a generic 500 and a reference to
 * the log line, never with the exception's text.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ApiStartAndInternalErrorTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @Test
  void anApiProcessWithAWorldReadableCodecKeysFileExitsAtStartNamingTheFileAndTheFix()
      throws Exception {
    String key = randomKey();
    Path keys = codecKeysFile(key, "rw-r--r--");
    Path log = dir.resolve("api.log");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process api =
        new ProcessBuilder(
                java,
                "-cp",
                System.getProperty("java.class.path"),
                "-Drunbooks.codec.keys-file=" + keys,
                "-Drunbooks.api.tokens-file="
                    + TestTokens.write(dir.resolve("api-tokens.yaml"), TestTokens.VIEWER),
                "-Drunbooks.inventory=" + dir.resolve("inventory.yaml"),
                "-Dtemporal.address=127.0.0.1:1",
                "-Dmicronaut.server.port=" + Ports.free(),
                Main.class.getName(),
                "run",
                "--roles=api")
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    try {
      assertThat(api.waitFor(90, TimeUnit.SECONDS)).as("the process ends by itself").isTrue();
    } finally {
      api.destroyForcibly();
    }

    String output = Files.readString(log);
    assertThat(api.exitValue()).as(output).isEqualTo(1);
    assertThat(output)
        .contains(
            "etcd-runbooks cannot start: runbooks.codec.keys-file: the codec keys file "
                + keys
                + " has mode 0644: its group may read it and others may read it; a secret file must be for its owner only"
                + " (0600 or 0400): chmod 600 "
                + keys);
    assertThat(output).doesNotContain(key).doesNotContain("listening on");
  }

  @ParameterizedTest
  @ValueSource(strings = {"worker", "api", "worker,api"})
  void noProcessStartsWithoutATemporalAddressNamingTheSettingAndTheDemo(String roles)
      throws IOException {
    Path inventory = Files.writeString(dir.resolve("inventory.yaml"), "clusters: {}\n");
    int port = Ports.free();

    assertThatThrownBy(
            () ->
                Main.start(
                        List.of(roles.split(",")),
                        Map.of(
                            "runbooks.inventory",
                            inventory.toString(),
                            "temporal.address",
                            "",
                            "micronaut.server.port",
                            port))
                    .close())
        .satisfies(
            e ->
                assertThat(Main.reason(e))
                    .startsWith("temporal.address (TEMPORAL_ADDRESS) is not set")
                    .contains("docs/configuration.md", "deploy/scripts/demo.sh"));
    assertThatThrownBy(() -> new Socket(InetAddress.getLoopbackAddress(), port).close())
        .as("nothing listens on the API port")
        .isInstanceOf(ConnectException.class);
  }

  @ParameterizedTest
  @ValueSource(strings = {"api", "worker,api"})
  void noProcessWithTheApiRoleStartsWithAGroupReadableCodecKeysFile(String roles) throws Exception {
    String key = randomKey();
    Path keys = codecKeysFile(key, "rw-r-----");
    int port = Ports.free();

    assertThatThrownBy(
            () ->
                Main.start(
                        List.of(roles.split(",")),
                        Map.of(
                            "runbooks.codec.keys-file", keys.toString(),
                            "runbooks.inventory", dir.resolve("inventory.yaml").toString(),
                            "temporal.address", "",
                            "temporal.embedded-port", Ports.free(),
                            "micronaut.server.port", port))
                    .close())
        .satisfies(
            e ->
                assertThat(Main.reason(e))
                    .isEqualTo(
                        "runbooks.codec.keys-file: the codec keys file "
                            + keys
                            + " has mode 0640: its group may read it; a secret file must be for its owner only (0600 or 0400): chmod 600 "
                            + keys))
        .satisfies(
            e ->
                assertThat(e)
                    .hasStackTraceContaining(keys.toString())
                    .message()
                    .doesNotContain(key));
    assertThatThrownBy(() -> new Socket(InetAddress.getLoopbackAddress(), port).close())
        .as("nothing listens on the API port")
        .isInstanceOf(ConnectException.class);
  }

  @Test
  void anApiProcessWithATemporalClientKeyOpenToOthersDoesNotStart() throws Exception {
    Path cert =
        Files.writeString(
            dir.resolve("temporal-client.crt"), "not read: the key is refused first\n");
    Path key =
        Files.createFile(
            dir.resolve("temporal-client.key"),
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(
        key, "-----BEGIN PRIVATE KEY-----\nnot-a-real-key\n-----END PRIVATE KEY-----\n");
    Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw----r--"));
    int port = Ports.free();

    assertThatThrownBy(
            () ->
                Main.start(
                        List.of("api"),
                        Map.of(
                            "runbooks.inventory", dir.resolve("inventory.yaml").toString(),
                            "temporal.address", "127.0.0.1:1",
                            "temporal.tls.cert-file", cert.toString(),
                            "temporal.tls.key-file", key.toString(),
                            "micronaut.server.port", port))
                    .close())
        .satisfies(
            e ->
                assertThat(Main.reason(e))
                    .isEqualTo(
                        "the Temporal client key file (temporal.tls.key-file) "
                            + key
                            + " has mode 0604: others may read it; a secret file must be for its owner only (0600 or 0400): chmod 600 "
                            + key))
        .satisfies(
            e ->
                assertThat(e)
                    .hasStackTraceContaining(key.toString())
                    .message()
                    .doesNotContain("not-a-real-key"));
    assertThatThrownBy(() -> new Socket(InetAddress.getLoopbackAddress(), port).close())
        .as("nothing listens on the API port")
        .isInstanceOf(ConnectException.class);
  }

  @Test
  void anUnexpectedExceptionInARouteIsA500WithAReferenceToTheLogAndNoExceptionText()
      throws Exception {
    ListAppender<ILoggingEvent> errors = new ListAppender<>();
    errors.start();
    Logger logger = (Logger) LoggerFactory.getLogger(UnexpectedErrorHandler.class);
    logger.addAppender(errors);
    // the inventory is not there: GET /api/v1/clusters fails inside the controller, where nothing
    // expects it
    Path inventory = dir.resolve("moved-away").resolve("inventory.yaml");
    try (ApplicationContext context =
        Main.start(
            List.of("api"),
            Map.of(
                "runbooks.api.tokens-file",
                    TestTokens.write(dir.resolve("api-tokens.yaml"), TestTokens.OPERATOR)
                        .toString(),
                "runbooks.inventory", inventory.toString(),
                "temporal.address", "",
                "temporal.embedded-port", Ports.free(),
                "micronaut.server.port", Ports.free()))) {
      String api = context.getBean(EmbeddedServer.class).getURL().toString();

      HttpResponse<String> answer =
          http.send(
              HttpRequest.newBuilder(URI.create(api + "/api/v1/clusters"))
                  .header("Authorization", TestTokens.OPERATOR.bearer())
                  .GET()
                  .build(),
              HttpResponse.BodyHandlers.ofString());

      assertThat(answer.statusCode()).isEqualTo(500);
      JsonNode body = JSON.readTree(answer.body());
      Matcher generic =
          Pattern.compile("internal error; see the API's log, reference ([0-9a-f]{12})")
              .matcher(body.path("message").asText());
      assertThat(generic.matches()).as(answer.body()).isTrue();
      assertThat(answer.body())
          .doesNotContain("inventory", dir.toString(), "Exception", "cannot read");

      ILoggingEvent logged =
          errors.list.stream()
              .filter(e -> e.getFormattedMessage().contains(generic.group(1)))
              .findFirst()
              .orElseThrow(
                  () ->
                      new AssertionError(
                          "no log line with reference " + generic.group(1) + " in " + errors.list));
      assertThat(logged.getLevel()).isEqualTo(Level.ERROR);
      assertThat(logged.getFormattedMessage())
          .isEqualTo("internal error, reference " + generic.group(1) + ": GET /api/v1/clusters");
      assertThat(logged.getThrowableProxy().getClassName())
          .isEqualTo(java.io.UncheckedIOException.class.getName());
      assertThat(logged.getThrowableProxy().getMessage())
          .contains("cannot read inventory", inventory.toString());

      // a failure with a handler of its own keeps it: a body that is not JSON is still a 400 that
      // says so
      HttpResponse<String> malformed =
          http.send(
              HttpRequest.newBuilder(URI.create(api + "/api/v1/clusters/c1/upgrade"))
                  .header("Authorization", TestTokens.OPERATOR.bearer())
                  .header("Content-Type", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofString("{\"targetVersion\":"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(malformed.statusCode()).as(malformed.body()).isEqualTo(400);
    } finally {
      logger.detachAppender(errors);
    }
  }

  private static String randomKey() {
    byte[] key = new byte[32];
    new SecureRandom().nextBytes(key);
    return Base64.getEncoder().encodeToString(key);
  }

  private Path codecKeysFile(String key, String mode) throws IOException {
    Path file = dir.resolve("codec-keys-" + System.nanoTime() + ".yaml");
    Files.createFile(
        file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(file, "current: k1\nkeys:\n  k1: " + key + "\n");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(mode));
    return file;
  }
}
