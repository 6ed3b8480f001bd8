package io.etcdrunbooks.testkit;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.cluster.Member;
import io.etcd.jetcd.options.GetOption;
import io.etcdrunbooks.activities.etcd.TlsMaterial;
import io.etcdrunbooks.inventory.TlsSpec;
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
 * healthy member of the etcd cluster. A manifest that names {@code --storage-backend} is ready only
 * when the store it names holds Kubernetes' data: etcd2, the v2 API's {@code /registry} directory;
 * etcd3, keys under {@code /registry} in v3.
 */
public final class KubeApiServerStandIn implements AutoCloseable {

  private static final String ETCD_SERVERS = "--etcd-servers=";
  private static final String STORAGE_BACKEND = "--storage-backend=";

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

  /**
   * kube-apiserver's etcd client TLS as its manifest gives it ({@code --etcd-cafile}, {@code
   * --etcd-certfile}, {@code --etcd-keyfile}); null when it gives none. Every file must be there:
   * the stand-in makes the real handshakes kube-apiserver would.
   */
  private static TlsMaterial etcdClientTls(String manifest) {
    List<String> ca = flagValues(manifest, "--etcd-cafile=");
    List<String> cert = flagValues(manifest, "--etcd-certfile=");
    List<String> key = flagValues(manifest, "--etcd-keyfile=");
    if (ca.isEmpty() && cert.isEmpty() && key.isEmpty()) return null;
    return TlsMaterial.load(
        new TlsSpec(
            ca.isEmpty() ? null : ca.get(0),
            cert.isEmpty() ? null : cert.get(0),
            key.isEmpty() ? null : key.get(0)));
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
    TlsMaterial tls;
    try {
      tls = etcdClientTls(text);
    } catch (RuntimeException e) {
      return "etcd client TLS files unusable: " + e.getMessage();
    }
    HttpClient client =
        tls == null
            ? http
            : HttpClient.newBuilder()
                .connectTimeout(Duration.ofSeconds(1))
                .sslContext(tls.sslContext())
                .build();
    for (String server : servers) {
      if (server.startsWith("https:") && tls == null) {
        return "etcd server " + server + " is https but the manifest gives no --etcd-cafile";
      }
      if (!healthy(client, server)) return "etcd server " + server + " is not healthy";
    }
    Set<String> memberUrls = memberClientUrls(servers, tls);
    for (String server : servers) {
      if (!memberUrls.contains(server))
        return "etcd server " + server + " is not a member of the cluster " + memberUrls;
    }
    return storageProblem(text, servers);
  }

  private String storageProblem(String manifest, List<String> servers) {
    List<String> backend = flagValues(manifest, STORAGE_BACKEND);
    if (backend.isEmpty()) return null;
    if (backend.get(0).equals("etcd2")) {
      int status = status(servers.get(0) + "/v2/keys/registry");
      return status == 200 ? null : "etcd2: the v2 API answers " + status + " for /registry";
    }
    if (backend.get(0).equals("etcd3")) {
      return v3RegistryKeys(servers) > 0 ? null : "etcd3: no keys under /registry in v3";
    }
    return "unknown --storage-backend " + backend.get(0);
  }

  private int status(String url) {
    try {
      return http.send(
              HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(2)).build(),
              HttpResponse.BodyHandlers.discarding())
          .statusCode();
    } catch (IOException | InterruptedException e) {
      return 0;
    }
  }

  private static long v3RegistryKeys(List<String> servers) {
    try (Client client = Client.builder().endpoints(servers.toArray(String[]::new)).build()) {
      ByteSequence prefix = ByteSequence.from("/registry/", StandardCharsets.UTF_8);
      return client
          .getKVClient()
          .get(prefix, GetOption.builder().isPrefix(true).withCountOnly(true).build())
          .get(3, TimeUnit.SECONDS)
          .getCount();
    } catch (Exception e) {
      throw new IllegalStateException("cannot count the v3 keys through " + servers + ": " + e, e);
    }
  }

  /**
   * The {@code --etcd-servers} of the manifest's command, read here on its own rather than with the
   * activities' parser (which the runbooks rewrite it with), so that a manifest the runbooks get
   * wrong is not read back the same wrong way.
   */
  static List<String> etcdServers(String manifest) {
    List<String> values = flagValues(manifest, ETCD_SERVERS);
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

  private static List<String> flagValues(String manifest, String flag) {
    return manifest
        .lines()
        .map(String::strip)
        .filter(line -> line.startsWith("- "))
        .map(line -> line.substring(2).strip().replaceAll("^[\"']|[\"']$", ""))
        .filter(arg -> arg.startsWith(flag))
        .map(arg -> arg.substring(flag.length()))
        .toList();
  }

  private static boolean healthy(HttpClient client, String server) {
    try {
      HttpResponse<String> answer =
          client.send(
              HttpRequest.newBuilder(URI.create(server + "/health"))
                  .timeout(Duration.ofSeconds(1))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      return answer.statusCode() == 200 && answer.body().contains("\"true\"");
    } catch (IOException | InterruptedException e) {
      return false;
    }
  }

  private static Set<String> memberClientUrls(List<String> servers, TlsMaterial tls) {
    var builder = Client.builder().endpoints(servers.toArray(String[]::new));
    try {
      if (tls != null) builder.sslContext(tls::configure);
    } catch (javax.net.ssl.SSLException e) {
      throw new IllegalStateException("etcd client TLS: " + e.getMessage(), e);
    }
    try (Client client = builder.build()) {
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
