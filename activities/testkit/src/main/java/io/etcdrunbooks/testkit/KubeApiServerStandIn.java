package io.etcdrunbooks.testkit;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.cluster.Member;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Stands in for one control-plane host's kube-apiserver in tests (no Kubernetes binaries can be had
 * here). Like kubelet plus the apiserver, it reads the static-pod manifest on every request, and
 * its {@code /readyz} answers 200 only while every {@code --etcd-servers} endpoint in it is a
 * healthy member of the etcd cluster.
 */
public final class KubeApiServerStandIn implements AutoCloseable {

  private static final String ETCD_SERVERS = "--etcd-servers=";

  private final Path manifest;
  private final HttpServer server;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
  private volatile String failWhenChangedFrom;

  public KubeApiServerStandIn(Path manifest) throws IOException {
    this.manifest = manifest;
    this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/readyz", this::readyz);
    server.start();
  }

  public String healthUrl() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/readyz";
  }

  private void readyz(HttpExchange exchange) throws IOException {
    String problem;
    try {
      problem = whyNotReady();
    } catch (RuntimeException | IOException e) {
      // an answer, never a dropped connection: kube-apiserver's /readyz reports failing checks as
      // 503
      problem = e.toString();
    }
    byte[] body = (problem == null ? "ok" : problem).getBytes(StandardCharsets.UTF_8);
    exchange.sendResponseHeaders(problem == null ? 200 : 503, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  /**
   * From now on, a manifest other than the current one gives an apiserver that never becomes ready
   * (a bad flag, say).
   */
  public void failAfterManifestChange() throws IOException {
    failWhenChangedFrom = Files.readString(manifest);
  }

  private String whyNotReady() throws IOException {
    String text;
    try {
      text = Files.readString(manifest);
    } catch (NoSuchFileException gone) {
      return "no manifest: kubelet runs no kube-apiserver";
    }
    String unchanged = failWhenChangedFrom;
    if (unchanged != null && !unchanged.equals(text))
      return "kube-apiserver crash-looping since its manifest changed";
    List<String> servers = etcdServers(text);
    for (String server : servers) {
      if (!healthy(server)) return "etcd server " + server + " is not healthy";
    }
    Set<String> memberUrls = memberClientUrls(servers);
    for (String server : servers) {
      if (!memberUrls.contains(server))
        return "etcd server " + server + " is not a member of the cluster " + memberUrls;
    }
    return null;
  }

  /**
   * The {@code --etcd-servers} of the manifest's command, read here on its own rather than with the
   * activities' parser (which the runbooks rewrite it with), so that a manifest the runbooks get
   * wrong is not read back the same wrong way.
   */
  static List<String> etcdServers(String manifest) {
    List<String> values =
        manifest
            .lines()
            .map(String::strip)
            .filter(line -> line.startsWith("- "))
            .map(line -> line.substring(2).strip().replaceAll("^[\"']|[\"']$", ""))
            .filter(arg -> arg.startsWith(ETCD_SERVERS))
            .map(arg -> arg.substring(ETCD_SERVERS.length()))
            .toList();
    if (values.size() != 1) {
      throw new IllegalStateException(
          "the manifest has "
              + values.size()
              + " "
              + ETCD_SERVERS
              + " arguments; kube-apiserver needs one");
    }
    return Arrays.stream(values.get(0).split(",")).filter(server -> !server.isBlank()).toList();
  }

  private boolean healthy(String server) {
    try {
      HttpResponse<String> answer =
          http.send(
              HttpRequest.newBuilder(URI.create(server + "/health"))
                  .timeout(Duration.ofSeconds(1))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      return answer.statusCode() == 200 && answer.body().contains("\"true\"");
    } catch (IOException | InterruptedException e) {
      return false;
    }
  }

  private static Set<String> memberClientUrls(List<String> servers) {
    try (Client client = Client.builder().endpoints(servers.toArray(String[]::new)).build()) {
      return client.getClusterClient().listMember().get(3, TimeUnit.SECONDS).getMembers().stream()
          .map(Member::getClientURIs)
          .flatMap(List::stream)
          .map(uri -> uri.toString().replaceAll("/$", ""))
          .collect(Collectors.toSet());
    } catch (Exception e) {
      throw new IllegalStateException(
          "cannot list the etcd members through " + servers + ": " + e, e);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
