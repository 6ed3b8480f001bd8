package io.etcdrunbooks.worker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdrunbooks.api.testing.TestTokens;
import io.etcdrunbooks.testkit.Ports;
import io.etcdrunbooks.testkit.Sandbox;
import io.etcdrunbooks.testkit.SandboxSpec;
import io.etcdrunbooks.testkit.TemporalDevServer;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;
import io.temporal.client.WorkflowClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the API tests share: a real 3-member sandbox, a worker+API process on the embedded Temporal
 * (or the server {@code temporal.address} names) with a tokens file, and an HTTP client for it.
 */
final class ApiSandbox implements AutoCloseable {

  static final ObjectMapper JSON = new ObjectMapper();

  final Sandbox sandbox;
  final ApplicationContext context;
  final WorkflowClient client;
  final String api;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private ApiSandbox(Sandbox sandbox, ApplicationContext context) {
    this.sandbox = sandbox;
    this.context = context;
    this.client = context.getBean(WorkflowClient.class);
    this.api = context.getBean(EmbeddedServer.class).getURL().toString();
  }

  /**
   * @param dir the test class's temp dir, which JUnit removes afterwards
   * @param name names the task queue
   * @param extra more application properties (they win over the defaults here)
   */
  static ApiSandbox start(
      Path dir, String name, String version, Map<String, Object> extra, TestTokens.Token... tokens)
      throws Exception {
    Sandbox sandbox =
        Sandbox.create(
            new SandboxSpec(dir.resolve("sandbox"), "sandbox", 3, version),
            SandboxRunbooks.releases());
    try {
      Path tokensFile = TestTokens.write(sandbox.dir().resolve("api-tokens.yaml"), tokens);
      Map<String, Object> properties =
          new HashMap<>(
              Map.of(
                  "runbooks.api.tokens-file",
                  tokensFile.toString(),
                  "runbooks.inventory",
                  sandbox.inventoryFile().toString(),
                  "runbooks.task-queue",
                  "etcd-runbooks-" + name,
                  "temporal.address",
                  "",
                  // the tests of the schedules ask for them
                  "runbooks.schedules.enabled",
                  false,
                  "micronaut.server.port",
                  Ports.free()));
      // a test that names a server (a TemporalDevServer) gets that one, others the in-memory one
      if (!extra.containsKey("temporal.address")) {
        properties.put("temporal.embedded-port", Ports.free());
      }
      properties.putAll(extra);
      return new ApiSandbox(sandbox, Main.start(List.of("worker", "api"), properties));
    } catch (Exception | Error e) {
      sandbox.close();
      throw e;
    }
  }

  /**
   * On the real Temporal server {@code temporal}, with the runbooks' search attributes on (it has
   * them registered), the worker polling {@code taskQueue}.
   */
  static ApiSandbox onRealServer(
      Path dir,
      TemporalDevServer temporal,
      String taskQueue,
      String version,
      TestTokens.Token... tokens)
      throws Exception {
    return start(
        dir,
        taskQueue,
        version,
        Map.of(
            "temporal.address",
            temporal.address(),
            "runbooks.task-queue",
            taskQueue,
            "runbooks.search-attributes.enabled",
            true),
        tokens);
  }

  /** An answer: its status, its body as JSON (null node when empty) and as sent. */
  record Answer(int status, JsonNode body, String text) {
    String message() {
      return body.path("message").asText();
    }
  }

  Answer get(String path, TestTokens.Token token) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(api + path)).GET();
    if (token != null) request.header("Authorization", token.bearer());
    return send(request.build());
  }

  Answer post(String path, String body, TestTokens.Token token) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(api + path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (token != null) request.header("Authorization", token.bearer());
    return send(request.build());
  }

  Answer send(HttpRequest request) throws Exception {
    HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
    String text = response.body() == null ? "" : response.body();
    JsonNode json;
    try {
      json = text.isBlank() ? JSON.nullNode() : JSON.readTree(text);
    } catch (Exception e) {
      json = JSON.nullNode();
    }
    return new Answer(response.statusCode(), json, text);
  }

  @Override
  public void close() {
    try {
      context.close();
    } finally {
      sandbox.close();
    }
  }
}
