package io.etcdrunbooks.testkit;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Set;

/**
 * What docs/configuration.md tells operators to put in front of the API's codec endpoint for the
 * Temporal Web UI, on 127.0.0.1 for the demo and the browser tests: the UI's browser calls it (CORS
 * for the UI's origin only), and it adds a viewer token the browser never sees before it forwards
 * {@code /decode} and {@code /encode} to the API's {@code /api/v1/codec}. It authenticates nobody:
 * it is only for one person's machine.
 */
public final class CodecProxy implements AutoCloseable {

  private static final Set<String> PATHS = Set.of("/decode", "/encode");

  private final HttpServer server;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final URI codec;
  private final String token;
  private volatile String uiOrigin = "";

  private CodecProxy(HttpServer server, URI codec, String token) {
    this.server = server;
    this.codec = codec;
    this.token = token;
  }

  /**
   * Listening, but refusing every browser's call until {@link #allowOrigin} names the UI's (the
   * UI's address is known only once its server, which must be told this proxy's, has started).
   *
   * @param codec the API's codec endpoint, {@code http://127.0.0.1:<port>/api/v1/codec}
   * @param viewerToken an API token of role viewer (or above) valid for every cluster
   */
  public static CodecProxy startForUi(URI codec, String viewerToken) {
    try {
      HttpServer server =
          HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      CodecProxy proxy = new CodecProxy(server, codec, viewerToken);
      server.createContext("/", proxy::handle);
      server.start();
      return proxy;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot listen on 127.0.0.1 for the codec proxy", e);
    }
  }

  /** The Web UI's origin, exactly as the browser sends it ({@code http://127.0.0.1:8233}). */
  public void allowOrigin(String origin) {
    uiOrigin = origin;
  }

  /** What the Web UI's codec endpoint setting takes. */
  public String endpoint() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String origin = exchange.getRequestHeaders().getFirst("Origin");
      if (origin != null) {
        if (!origin.equals(uiOrigin)) {
          exchange.sendResponseHeaders(403, -1);
          return;
        }
        var headers = exchange.getResponseHeaders();
        headers.set("Access-Control-Allow-Origin", origin);
        headers.set("Access-Control-Allow-Credentials", "true");
        headers.set("Access-Control-Allow-Methods", "POST");
        headers.set("Access-Control-Allow-Headers", "Authorization, Content-Type, X-Namespace");
        headers.set("Vary", "Origin");
      }
      String path = exchange.getRequestURI().getPath();
      if (exchange.getRequestMethod().equals("OPTIONS")) {
        exchange.sendResponseHeaders(204, -1);
        return;
      }
      if (!exchange.getRequestMethod().equals("POST") || !PATHS.contains(path)) {
        exchange.sendResponseHeaders(404, -1);
        return;
      }
      byte[] body;
      try (InputStream in = exchange.getRequestBody()) {
        body = in.readAllBytes();
      }
      HttpRequest.Builder forward =
          HttpRequest.newBuilder(URI.create(codec + path))
              .timeout(Duration.ofSeconds(10))
              .header("Authorization", "Bearer " + token)
              .header("Content-Type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofByteArray(body));
      String namespace = exchange.getRequestHeaders().getFirst("X-Namespace");
      if (namespace != null) forward.header("X-Namespace", namespace);
      HttpResponse<byte[]> answer;
      try {
        answer = http.send(forward.build(), HttpResponse.BodyHandlers.ofByteArray());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        exchange.sendResponseHeaders(503, -1);
        return;
      }
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.sendResponseHeaders(
          answer.statusCode(), answer.body().length == 0 ? -1 : answer.body().length);
      if (answer.body().length > 0) exchange.getResponseBody().write(answer.body());
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
