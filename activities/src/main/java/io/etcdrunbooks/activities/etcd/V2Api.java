package io.etcdrunbooks.activities.etcd;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdrunbooks.inventory.ClusterSpec;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A member's v2 keys API over HTTP(S), with the cluster's client TLS: the whole store read in one
 * recursive answer, and a prefix deleted. The v2 store of a Kubernetes 1.5 cluster is read into
 * memory whole, as kube-apiserver itself lists it.
 */
public final class V2Api {

  private static final Duration TIMEOUT = Duration.ofSeconds(60);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient http;

  /**
   * One key of the v2 store.
   *
   * @param expiresAt when its TTL runs out; null when it has none
   */
  public record Node(String key, String value, Instant expiresAt) {
    public boolean hasTtl() {
      return expiresAt != null;
    }
  }

  public V2Api(ClusterSpec spec) {
    HttpClient.Builder builder =
        HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(3))
            .version(HttpClient.Version.HTTP_1_1);
    if (spec.tls() != null) builder.sslContext(TlsMaterial.load(spec.tls()).sslContext());
    this.http = builder.build();
  }

  /** Whether the member serves the v2 API (its root answers; 404 when v2 is off). */
  public boolean served(String clientUrl) throws IOException {
    URI uri = url(clientUrl, "/v2/keys/");
    HttpResponse<InputStream> response = send(HttpRequest.newBuilder(uri).GET(), uri);
    response.body().close();
    if (response.statusCode() == 404) return false;
    if (response.statusCode() != 200) {
      throw new IOException(uri + " answered HTTP " + response.statusCode());
    }
    return true;
  }

  /** Every key of the store (directories left out), in key order; empty when v2 is not served. */
  public Optional<List<Node>> readAll(String clientUrl) throws IOException {
    URI uri = url(clientUrl, "/v2/keys/?recursive=true&sorted=true");
    HttpResponse<InputStream> response = send(HttpRequest.newBuilder(uri).GET(), uri);
    try (InputStream body = response.body()) {
      if (response.statusCode() == 404) return Optional.empty();
      if (response.statusCode() != 200) {
        throw new IOException(uri + " answered HTTP " + response.statusCode());
      }
      List<Node> nodes = new ArrayList<>();
      collect(JSON.readTree(body).path("node"), nodes);
      return Optional.of(nodes);
    }
  }

  /**
   * Deletes the prefix (a directory, recursively, or a single key) and nothing else; returns how
   * many keys it held. A prefix gone meanwhile (404) counts as deleted.
   */
  public long deletePrefix(String clientUrl, String prefix) throws IOException {
    long held =
        readAll(clientUrl).orElse(List.of()).stream()
            .filter(n -> n.key().equals(prefix) || n.key().startsWith(prefix + "/"))
            .count();
    if (held == 0) return 0;
    URI uri = url(clientUrl, "/v2/keys" + encodePath(prefix) + "?recursive=true");
    HttpResponse<InputStream> response = send(HttpRequest.newBuilder(uri).DELETE(), uri);
    response.body().close();
    if (response.statusCode() != 200 && response.statusCode() != 404) {
      throw new IOException("DELETE " + uri + " answered HTTP " + response.statusCode());
    }
    return held;
  }

  private static String encodePath(String key) {
    StringBuilder out = new StringBuilder();
    for (String segment : key.split("/")) {
      if (segment.isEmpty()) continue;
      out.append('/')
          .append(URLEncoder.encode(segment, StandardCharsets.UTF_8).replace("+", "%20"));
    }
    return out.toString();
  }

  private static void collect(JsonNode node, List<Node> into) {
    if (node.path("dir").asBoolean(false)) {
      for (JsonNode child : node.path("nodes")) collect(child, into);
    } else if (node.has("key")) {
      JsonNode expiration = node.get("expiration");
      into.add(
          new Node(
              node.get("key").asText(),
              node.path("value").asText(""),
              expiration == null ? null : Instant.parse(expiration.asText())));
    }
  }

  private HttpResponse<InputStream> send(HttpRequest.Builder request, URI uri) throws IOException {
    try {
      return http.send(request.timeout(TIMEOUT).build(), HttpResponse.BodyHandlers.ofInputStream());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(uri + ": interrupted", e);
    }
  }

  private static URI url(String clientUrl, String path) {
    String base =
        clientUrl.endsWith("/") ? clientUrl.substring(0, clientUrl.length() - 1) : clientUrl;
    return URI.create(base + path);
  }
}
