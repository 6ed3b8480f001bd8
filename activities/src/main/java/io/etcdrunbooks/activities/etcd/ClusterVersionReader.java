package io.etcdrunbooks.activities.etcd;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.workflows.model.V2DataOwners;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

/**
 * Reads a member's {@code /version} and {@code /health} over HTTP(S) with the JDK HttpClient, using
 * the cluster's client TLS when it has one.
 */
public final class ClusterVersionReader {

  private static final Duration TIMEOUT = Duration.ofSeconds(3);
  // a Kubernetes 1.5 cluster's whole v2 store comes in one answer
  private static final Duration V2_TIMEOUT = Duration.ofSeconds(30);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient http;
  private final TlsMaterial tls;

  /**
   * @param etcdserver the member's server version, for example 3.4.23; @param etcdcluster the
   *     cluster version, for example 3.4.0
   */
  public record VersionInfo(String etcdserver, String etcdcluster) {}

  public ClusterVersionReader(ClusterSpec spec) {
    HttpClient.Builder builder =
        HttpClient.newBuilder().connectTimeout(TIMEOUT).version(HttpClient.Version.HTTP_1_1);
    this.tls = spec.tls() == null ? null : TlsMaterial.load(spec.tls());
    if (tls != null) builder.sslContext(tls.sslContext());
    this.http = builder.build();
  }

  /** GET {@code <clientUrl>/version}; fails with an {@link IOException} naming the URL. */
  public VersionInfo version(String clientUrl) throws IOException {
    JsonNode body = getJson(clientUrl, "/version");
    JsonNode server = body.get("etcdserver");
    JsonNode cluster = body.get("etcdcluster");
    if (server == null)
      throw new IOException(url(clientUrl, "/version") + " answered without etcdserver: " + body);
    // etcd reports "not_decided" while the cluster version is not yet agreed on
    String clusterVersion =
        cluster == null || "not_decided".equals(cluster.asText()) ? "" : cluster.asText();
    return new VersionInfo(server.asText(), clusterVersion);
  }

  /** GET {@code <clientUrl>/health}: true when etcd answers {"health":"true"}. */
  public boolean healthy(String clientUrl) throws IOException {
    JsonNode health = getJson(clientUrl, "/health").get("health");
    return health != null && "true".equals(health.asText());
  }

  /**
   * The certificate the member presents in a TLS handshake on its client URL (read from the answer
   * to GET /version); empty for an http URL.
   */
  public Optional<X509Certificate> serverCertificate(String clientUrl) throws IOException {
    if (!clientUrl.startsWith("https:")) return Optional.empty();
    URI uri = url(clientUrl, "/version");
    try {
      HttpResponse<Void> response =
          http.send(
              HttpRequest.newBuilder(uri).timeout(TIMEOUT).GET().build(),
              HttpResponse.BodyHandlers.discarding());
      return response
          .sslSession()
          .flatMap(
              session -> {
                try {
                  return Arrays.stream(session.getPeerCertificates())
                      .filter(c -> c instanceof X509Certificate)
                      .map(c -> (X509Certificate) c)
                      .findFirst();
                } catch (SSLPeerUnverifiedException e) {
                  return Optional.empty();
                }
              });
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(uri + ": interrupted", e);
    }
  }

  /**
   * The certificate the member presents to its peers, from a TLS handshake on its peer URL with the
   * worker's client certificate; empty for an http URL or a cluster without client TLS. The
   * certificate is read even when the peer listener then refuses the worker's client certificate.
   */
  public Optional<X509Certificate> peerCertificate(String peerUrl) throws IOException {
    if (tls == null || !peerUrl.startsWith("https:")) return Optional.empty();
    URI uri = URI.create(peerUrl);
    AtomicReference<X509Certificate[]> shown = new AtomicReference<>();
    SSLSocketFactory sockets = tls.sslContextShowing(shown::set).getSocketFactory();
    try (Socket plain = new Socket()) {
      plain.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), (int) TIMEOUT.toMillis());
      plain.setSoTimeout((int) TIMEOUT.toMillis());
      try (SSLSocket socket =
          (SSLSocket) sockets.createSocket(plain, uri.getHost(), uri.getPort(), false)) {
        socket.startHandshake();
      } catch (SSLException e) {
        if (shown.get() == null) throw new IOException(peerUrl + ": " + e.getMessage(), e);
      }
    } catch (IOException e) {
      if (shown.get() == null) throw new IOException(peerUrl + ": " + e.getMessage(), e);
    }
    X509Certificate[] chain = shown.get();
    return chain == null || chain.length == 0 ? Optional.empty() : Optional.of(chain[0]);
  }

  /**
   * GET {@code <clientUrl>/metrics}: the value of one unlabelled metric the member exports, or
   * empty when its version does not export it.
   */
  public OptionalDouble metric(String clientUrl, String name) throws IOException {
    URI uri = url(clientUrl, "/metrics");
    HttpRequest request = HttpRequest.newBuilder(uri).timeout(TIMEOUT).GET().build();
    try {
      HttpResponse<Stream<String>> response =
          http.send(request, HttpResponse.BodyHandlers.ofLines());
      try (Stream<String> lines = response.body()) {
        if (response.statusCode() != 200) {
          throw new IOException(uri + " answered HTTP " + response.statusCode());
        }
        String prefix = name + " ";
        return lines
            .filter(line -> line.startsWith(prefix))
            .mapToDouble(line -> Double.parseDouble(line.substring(prefix.length()).strip()))
            .findFirst();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(uri + ": interrupted", e);
    } catch (NumberFormatException e) {
      throw new IOException(uri + ": " + name + " is not a number: " + e.getMessage(), e);
    }
  }

  /** What one member's v2 API shows: nothing when it does not serve it (HTTP 404). */
  public record V2Keys(long keys, long keysWithTtl, Map<String, Long> byPrefix) {}

  /**
   * GET {@code <clientUrl>/v2/keys/?recursive=true}: the v2 store's keys, or empty when the member
   * does not serve the v2 API (3.4 and later by default answer 404).
   */
  public Optional<V2Keys> v2Keys(String clientUrl) throws IOException {
    URI uri = url(clientUrl, "/v2/keys/?recursive=true");
    HttpRequest request = HttpRequest.newBuilder(uri).timeout(V2_TIMEOUT).GET().build();
    try {
      HttpResponse<InputStream> response =
          http.send(request, HttpResponse.BodyHandlers.ofInputStream());
      try (InputStream body = response.body()) {
        if (response.statusCode() == 404) return Optional.empty();
        if (response.statusCode() != 200) {
          throw new IOException(uri + " answered HTTP " + response.statusCode());
        }
        long[] counts = new long[2];
        Map<String, Long> byPrefix = new TreeMap<>();
        count(JSON.readTree(body).path("node"), counts, byPrefix);
        return Optional.of(new V2Keys(counts[0], counts[1], byPrefix));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(uri + ": interrupted", e);
    }
  }

  private static void count(JsonNode node, long[] keysAndTtls, Map<String, Long> byPrefix) {
    if (node.path("dir").asBoolean(false)) {
      for (JsonNode child : node.path("nodes")) count(child, keysAndTtls, byPrefix);
    } else if (node.has("key")) {
      keysAndTtls[0]++;
      byPrefix.merge(V2DataOwners.topPrefix(node.get("key").asText()), 1L, Long::sum);
      if (node.has("ttl")) keysAndTtls[1]++;
    }
  }

  private JsonNode getJson(String clientUrl, String path) throws IOException {
    URI uri = url(clientUrl, path);
    HttpRequest request = HttpRequest.newBuilder(uri).timeout(TIMEOUT).GET().build();
    try {
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      // /health answers 503 with {"health":"false"} when the member is unhealthy: still a readable
      // answer
      if (response.statusCode() != 200 && response.statusCode() != 503) {
        throw new IOException(uri + " answered HTTP " + response.statusCode());
      }
      return JSON.readTree(response.body());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(uri + ": interrupted", e);
    } catch (IOException e) {
      String reason = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
      throw new IOException(reason.contains(uri.toString()) ? reason : uri + ": " + reason, e);
    }
  }

  private static URI url(String clientUrl, String path) {
    String base =
        clientUrl.endsWith("/") ? clientUrl.substring(0, clientUrl.length() - 1) : clientUrl;
    return URI.create(base + path);
  }
}
