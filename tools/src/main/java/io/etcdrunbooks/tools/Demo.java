package io.etcdrunbooks.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcdrunbooks.activities.release.LocalDirReleaseStore;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.testkit.CodecProxy;
import io.etcdrunbooks.testkit.EtcdTestCluster;
import io.etcdrunbooks.testkit.Ports;
import io.etcdrunbooks.testkit.SandboxMain;
import io.etcdrunbooks.testkit.TemporalDevServer;
import io.etcdrunbooks.worker.Main;
import io.micronaut.runtime.server.EmbeddedServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.LoggerFactory;

/**
 * The main job: a 3-member sandbox at an old version, the real Temporal server with its Web UI
 * ({@code temporal server start-dev} on a SQLite file in the demo's directory; with {@code
 * --embedded}, Temporal's in-memory test server in this process), the worker and the API in this
 * process; the upgrade is started and followed through the HTTP API like any client would, and can
 * be watched in the Web UI, which decodes the encrypted payloads through the API's codec endpoint.
 */
final class Demo {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int DEMO_KEYS = 1000;

  private Demo() {}

  static int run(Map<String, String> options) throws Exception {
    String from = options.getOrDefault("from", "3.3.25");
    String to = options.getOrDefault("to", "3.5.30");
    Path releases = LocalDirReleaseStore.defaultDir();
    Path dir =
        Path.of(
            options.getOrDefault(
                "dir", Files.createTempDirectory("etcd-runbooks-demo").toString()));
    quietLogs();
    boolean machines = options.containsKey("machines");
    System.out.printf(
        "== etcd-runbooks demo: 3-member %s on %s, upgraded to %s%n",
        machines ? "cluster on systemd machines" : "sandbox", from, to);
    System.out.printf("   releases from %s, sandbox in %s%n", releases, dir);
    try (EtcdTestCluster sandbox =
        SandboxMain.create(
            dir,
            "sandbox",
            3,
            from,
            machines ? "systemd" : "plain",
            new LocalDirReleaseStore(releases))) {
      System.out.println(
          "   sandbox up: "
              + sandbox.cluster().members().stream()
                  .map(m -> m.name() + " " + m.clientUrl())
                  .toList());
      writeKeys(sandbox.cluster().members());
      String token = HexFormat.of().formatHex(randomBytes());
      Path tokens = writeOperatorToken(dir.resolve("api-tokens.yaml"), token);
      Path codecKeys =
          writePrivate(
              dir.resolve("codec-keys.yaml"),
              "current: demo\nkeys:\n  demo: "
                  + Base64.getEncoder().encodeToString(randomBytes())
                  + "\n");
      System.out.println(
          "   Temporal payloads encrypted with AES-256-GCM key 'demo' (" + codecKeys + ")");
      Map<String, Object> settings =
          Map.of(
              "runbooks.api.tokens-file", tokens.toString(),
              "runbooks.codec.keys-file", codecKeys.toString(),
              "runbooks.inventory", sandbox.inventoryFile().toString(),
              "runbooks.search-attributes.enabled", true);
      if (options.containsKey("embedded")) {
        try (LocalRunbooks runbooks = LocalRunbooks.start(List.of("worker", "api"), settings)) {
          return upgradeThroughApi(apiOf(runbooks), "Bearer " + token, to);
        }
      }
      return onRealServer(dir, settings, token, to, options.containsKey("keep-server"));
    }
  }

  /**
   * The upgrade on {@code temporal server start-dev}, its Web UI decoding through a {@link
   * CodecProxy} that holds the demo's token; the server is stopped at the end (it is this demo's
   * own), or with {@code keepServer} when interrupted.
   */
  private static int onRealServer(
      Path dir, Map<String, Object> settings, String token, String to, boolean keepServer)
      throws Exception {
    int apiPort = Ports.free();
    URI codec = URI.create("http://127.0.0.1:" + apiPort + "/api/v1/codec");
    int status;
    try (CodecProxy proxy = CodecProxy.startForUi(codec, token)) {
      TemporalDevServer temporal =
          TemporalDevServer.start(dir.resolve("temporal"), proxy.endpoint());
      proxy.allowOrigin(temporal.webUi());
      System.out.println(
          "   Temporal server "
              + temporal.address()
              + " (SQLite "
              + dir.resolve("temporal/temporal.db")
              + ")");
      System.out.println(
          "   Temporal Web UI: "
              + temporal.webUi()
              + "/namespaces/default/workflows?query=EtcdCluster%3D%22sandbox%22");
      Map<String, Object> all = new HashMap<>(settings);
      all.put("micronaut.server.port", apiPort);
      try (LocalRunbooks runbooks = LocalRunbooks.start(temporal, List.of("worker", "api"), all)) {
        status = upgradeThroughApi(apiOf(runbooks), "Bearer " + token, to);
        if (keepServer) {
          System.out.println(
              "== the Temporal server, its Web UI and the API stay up until interrupted (Ctrl-C)");
          Main.runUntilStopped(runbooks::close);
        }
      }
    }
    System.out.printf(
        "   Temporal server stopped; to look at the run again: %s server start-dev --db-filename %s%n",
        TemporalDevServer.binary(), dir.resolve("temporal/temporal.db"));
    return status;
  }

  private static String apiOf(LocalRunbooks runbooks) {
    return runbooks.context().getBean(EmbeddedServer.class).getURL().toString();
  }

  private static byte[] randomBytes() {
    byte[] bytes = new byte[32];
    new SecureRandom().nextBytes(bytes);
    return bytes;
  }

  /**
   * The demo's own API token: an operator, valid only for this run (the file lives in the demo's
   * directory).
   */
  private static Path writeOperatorToken(Path file, String token) throws IOException {
    String sha256;
    try {
      sha256 =
          HexFormat.of()
              .formatHex(
                  MessageDigest.getInstance("SHA-256")
                      .digest(token.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    return writePrivate(
        file, "tokens:\n  - name: demo\n    sha256: " + sha256 + "\n    role: operator\n");
  }

  /**
   * A file only its owner may read (mode 0600 from its creation), as the tokens and keys files must
   * be.
   */
  private static Path writePrivate(Path file, String text) throws IOException {
    Files.deleteIfExists(file);
    Files.createFile(
        file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(file, text);
    return file;
  }

  private static int upgradeThroughApi(String api, String authorization, String to)
      throws IOException, InterruptedException {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    JsonNode started =
        JSON.readTree(
            http.send(
                    HttpRequest.newBuilder(URI.create(api + "/api/v1/clusters/sandbox/upgrade"))
                        .header("Content-Type", "application/json")
                        .header("Authorization", authorization)
                        .POST(
                            HttpRequest.BodyPublishers.ofString(
                                "{\"targetVersion\":\"" + to + "\",\"dryRun\":false}"))
                        .build(),
                    HttpResponse.BodyHandlers.ofString())
                .body());
    if (!started.hasNonNull("workflowId")) {
      System.out.println("!! the API refused the upgrade: " + started);
      return 1;
    }
    String id = started.get("workflowId").asText();
    System.out.println(
        "== started runbook " + id + " (follow it at " + api + "/api/v1/runbooks/" + id + ")");
    Instant begin = Instant.now();
    int printed = 0;
    JsonNode view;
    String lastPhase = "";
    // Bounded: the whole ladder on loopback takes well under this.
    Instant deadline = begin.plus(Duration.ofMinutes(20));
    do {
      TimeUnit.MILLISECONDS.sleep(500);
      view =
          JSON.readTree(
              http.send(
                      HttpRequest.newBuilder(URI.create(api + "/api/v1/runbooks/" + id))
                          .header("Authorization", authorization)
                          .GET()
                          .build(),
                      HttpResponse.BodyHandlers.ofString())
                  .body());
      JsonNode progress = view.path("progress");
      JsonNode completed = progress.path("completed");
      for (; printed < completed.size(); printed++) {
        JsonNode step = completed.get(printed);
        System.out.printf(
            "   %-45s %6d ms  %s%n",
            step.path("name").asText(),
            step.path("durationMillis").asLong(),
            step.path("outcome").asText());
      }
      if (!progress.path("phase").asText().equals(lastPhase)) {
        lastPhase = progress.path("phase").asText();
        System.out.printf("-- phase %s %s%n", lastPhase, progress.path("step").asText());
      }
    } while ("RUNNING".equals(view.path("status").asText()) && Instant.now().isBefore(deadline));
    Duration took = Duration.between(begin, Instant.now());
    if ("COMPLETED".equals(view.path("status").asText())) {
      JsonNode result = view.path("result");
      System.out.printf("== upgrade COMPLETED in %d s%n", took.toSeconds());
      System.out.println("   members:         " + result.path("memberVersions"));
      System.out.println("   cluster version: " + result.path("clusterVersion").asText());
      System.out.println("   backup:          " + result.path("backup").path("path").asText());
      System.out.println("   keyspace before: " + result.path("keyspaceBefore"));
      System.out.println("   keyspace after:  " + result.path("keyspaceAfter"));
      System.out.println("   restarted:       " + result.path("restartedMembers"));
      return 0;
    }
    System.out.printf(
        "== upgrade %s after %d s: %s%n",
        view.path("status").asText(), took.toSeconds(), view.path("failure").asText());
    return 1;
  }

  private static void writeKeys(List<MemberSpec> members) throws Exception {
    try (Client client =
        Client.builder()
            .endpoints(members.stream().map(MemberSpec::clientUrl).toArray(String[]::new))
            .build()) {
      for (int i = 0; i < DEMO_KEYS; i++) {
        client
            .getKVClient()
            .put(bytes("/registry/demo/key-" + i), bytes("value-" + i))
            .get(10, TimeUnit.SECONDS);
      }
    }
    System.out.println("   wrote " + DEMO_KEYS + " keys under /registry/demo/");
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }

  /** The demo prints the runbook's progress itself; the worker's own INFO lines would repeat it. */
  static void quietLogs() {
    if (LoggerFactory.getLogger("io.etcdrunbooks")
        instanceof ch.qos.logback.classic.Logger logger) {
      logger.setLevel(ch.qos.logback.classic.Level.WARN);
    }
  }
}
