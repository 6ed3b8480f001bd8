package io.etcdrunbooks.activities.etcd;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.etcdrunbooks.inventory.ClusterSpec;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * etcd's downgrade and status calls through its gRPC gateway ({@code POST /v3/maintenance/...}),
 * with the cluster's client TLS and, when auth is on, a token from {@code /v3/auth/authenticate}:
 * jetcd has neither the Downgrade call nor the status' storage version and downgrade info (3.6).
 */
final class DowngradeGateway {

  private static final Duration TIMEOUT = Duration.ofSeconds(10);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** etcd answered the call with an error: its message, as etcdctl prints it. */
  static final class Refused extends Exception {
    private static final long serialVersionUID = 1L;

    Refused(String message) {
      super(message);
    }
  }

  private final HttpClient http;
  private final EtcdCredentials credentials;

  DowngradeGateway(ClusterSpec spec) {
    HttpClient.Builder builder =
        HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(3))
            .version(HttpClient.Version.HTTP_1_1);
    if (spec.tls() != null) builder.sslContext(TlsMaterial.load(spec.tls()).sslContext());
    this.http = builder.build();
    this.credentials = spec.auth() == null ? null : EtcdCredentials.load(spec);
  }

  /** The member's status as etcd's gateway gives it (storageVersion, downgradeInfo from 3.6). */
  JsonNode status(String clientUrl) throws IOException, Refused {
    return post(clientUrl, "/v3/maintenance/status", JSON.createObjectNode());
  }

  /**
   * {@code etcdctl downgrade <action> <version>}: VALIDATE, ENABLE or CANCEL; the cluster version
   * etcd answers with.
   */
  String downgrade(String clientUrl, String action, String version) throws IOException, Refused {
    ObjectNode body = JSON.createObjectNode().put("action", action).put("version", version);
    return post(clientUrl, "/v3/maintenance/downgrade", body).path("version").asText("");
  }

  private JsonNode post(String clientUrl, String path, ObjectNode body)
      throws IOException, Refused {
    HttpRequest.Builder request = request(clientUrl, path, body);
    if (credentials != null) request.header("Authorization", token(clientUrl));
    return send(request.build());
  }

  private String token(String clientUrl) throws IOException, Refused {
    ObjectNode body =
        JSON.createObjectNode()
            .put("name", credentials.user())
            .put("password", credentials.password());
    String token =
        send(request(clientUrl, "/v3/auth/authenticate", body).build()).path("token").asText("");
    if (token.isEmpty()) throw new Refused("etcd gave no token to user " + credentials.user());
    return token;
  }

  private static HttpRequest.Builder request(String clientUrl, String path, ObjectNode body) {
    String base =
        clientUrl.endsWith("/") ? clientUrl.substring(0, clientUrl.length() - 1) : clientUrl;
    return HttpRequest.newBuilder(URI.create(base + path))
        .timeout(TIMEOUT)
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body.toString()));
  }

  private JsonNode send(HttpRequest request) throws IOException, Refused {
    try {
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      JsonNode answer =
          response.body().isBlank() ? JSON.createObjectNode() : JSON.readTree(response.body());
      if (response.statusCode() == 200) return answer;
      String message = answer.path("message").asText(answer.path("error").asText(""));
      if (response.statusCode() >= 400 && response.statusCode() < 500 || !message.isEmpty()) {
        throw new Refused(message.isEmpty() ? "HTTP " + response.statusCode() : message);
      }
      throw new IOException(request.uri() + " answered HTTP " + response.statusCode());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(request.uri() + ": interrupted", e);
    }
  }
}
