package io.etcdrunbooks.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsExchange;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import io.etcdrunbooks.activities.etcd.TlsMaterial;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.Inventory;
import io.etcdrunbooks.inventory.InventoryLoader;
import io.etcdrunbooks.inventory.KubernetesSpec;
import io.etcdrunbooks.inventory.TlsSpec;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.TrustManagerFactory;

/**
 * Stands in for a cluster's Kubernetes API in tests (no Kubernetes binaries can be had here): over
 * HTTPS with a CA of its own, it serves kubeadm's {@code kube-system/kubeadm-config} ConfigMap
 * (GET, and PUT that answers 409 on a stale {@code metadata.resourceVersion}, as the apiserver
 * does) and {@code /api/v1/nodes}, whose Ready conditions a test sets. Every request must carry its
 * bearer token or a client certificate its CA issued, else 401. It writes two kubeconfig files for
 * it, one with the token and one with the client certificate and key (inline, as kubeadm's
 * admin.conf).
 */
public final class KubernetesApiStandIn implements AutoCloseable {

  static final String KUBEADM_CONFIG = "/api/v1/namespaces/kube-system/configmaps/kubeadm-config";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpsServer server;
  private final String token;
  private final Path tokenKubeconfig;
  private final Path certificateKubeconfig;
  private final AtomicInteger resourceVersion = new AtomicInteger(1000);
  private final Map<String, Boolean> nodes = new LinkedHashMap<>();
  private final Map<String, Integer> flapping = new LinkedHashMap<>();
  private final List<String> requests = new CopyOnWriteArrayList<>();
  private volatile String clusterConfiguration;
  private volatile String beforeNextPut;

  private KubernetesApiStandIn(
      HttpsServer server, String token, Path dir, TlsSpec client, Path caFile, String yaml)
      throws IOException {
    this.server = server;
    this.token = token;
    this.clusterConfiguration = yaml;
    String server64 = base64(Files.readAllBytes(caFile));
    String url = "https://127.0.0.1:" + server.getAddress().getPort();
    this.tokenKubeconfig =
        secret(dir.resolve("token.kubeconfig"), kubeconfig(url, server64, "token: " + token));
    this.certificateKubeconfig =
        secret(
            dir.resolve("admin.conf"),
            kubeconfig(
                url,
                server64,
                "client-certificate-data: "
                    + base64(Files.readAllBytes(Path.of(client.certFile())))
                    + "\n    client-key-data: "
                    + base64(Files.readAllBytes(Path.of(client.keyFile())))));
  }

  /**
   * Starts one, its certificates and kubeconfig files in {@code dir}.
   *
   * @param clusterConfiguration the YAML kubeadm-config's ClusterConfiguration holds; null: no
   *     kubeadm-config (404)
   */
  public static KubernetesApiStandIn start(Path dir, String clusterConfiguration) throws Exception {
    Files.createDirectories(dir);
    TestCertificates.Authority ca = TestCertificates.authority(dir, "kubernetes");
    TestCertificates.Issued serving =
        ca.issue("apiserver", List.of("127.0.0.1"), Instant.now(), TestCertificates.VALIDITY);
    TlsSpec client = ca.issueClient("kubernetes-admin");
    HttpsServer server =
        HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setHttpsConfigurator(
        new HttpsConfigurator(serverContext(serving, ca.caFile())) {
          @Override
          public void configure(HttpsParameters params) {
            params.setWantClientAuth(true);
          }
        });
    KubernetesApiStandIn standIn =
        new KubernetesApiStandIn(server, token(), dir, client, ca.caFile(), clusterConfiguration);
    server.createContext("/", standIn::handle);
    server.start();
    return standIn;
  }

  /** A kubeconfig whose user is the bearer token. */
  public Path tokenKubeconfig() {
    return tokenKubeconfig;
  }

  /** A kubeconfig whose user is a client certificate and key, inline (kubeadm's admin.conf). */
  public Path certificateKubeconfig() {
    return certificateKubeconfig;
  }

  /**
   * The sandbox's cluster, in its inventory file as it is now (control-plane hosts attached, say),
   * gains {@code kubernetes.kubeconfig} (the token one) and the threshold.
   */
  public void attachTo(Sandbox sandbox, int maxNotReadyNodes) {
    Inventory inventory = InventoryLoader.load(sandbox.inventoryFile());
    ClusterSpec cluster = inventory.cluster(sandbox.cluster().name());
    Map<String, ClusterSpec> clusters = new LinkedHashMap<>(inventory.clusters());
    clusters.put(cluster.name(), cluster.withKubernetes(spec(maxNotReadyNodes)));
    InventoryLoader.write(inventory.withClusters(clusters), sandbox.inventoryFile());
  }

  /** kubeadm-config's ClusterConfiguration now. */
  public String clusterConfiguration() {
    return clusterConfiguration;
  }

  /** Another writer's change: the resourceVersion moves, as after a kubectl edit. */
  public void writtenBySomeoneElse(String yaml) {
    clusterConfiguration = yaml;
    resourceVersion.incrementAndGet();
  }

  /**
   * Another writer's change that lands between the next read and the next PUT: that PUT carries a
   * stale resourceVersion and gets 409.
   */
  public void writtenBySomeoneElseBeforeNextPut(String yaml) {
    beforeNextPut = yaml;
  }

  /** Sets a node's Ready condition (a node not set yet is added). */
  public void node(String name, boolean ready) {
    synchronized (nodes) {
      nodes.put(name, ready);
    }
  }

  /**
   * The node goes NotReady once its list has been read {@code looks} times (a kubelet that starts
   * flapping while a watch runs).
   */
  public void notReadyAfterLooks(String name, int looks) {
    synchronized (nodes) {
      flapping.put(name, looks);
    }
  }

  /** What an inventory names for this API: the token kubeconfig and the threshold. */
  public KubernetesSpec spec(int maxNotReadyNodes) {
    return new KubernetesSpec(tokenKubeconfig.toString(), maxNotReadyNodes);
  }

  /** "GET /api/...", "PUT /api/... 409", in order. */
  public List<String> requests() {
    return List.copyOf(requests);
  }

  private void handle(HttpExchange exchange) throws IOException {
    String call = exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath();
    try {
      if (!authorized((HttpsExchange) exchange)) {
        answer(exchange, call, 401, status(401, "Unauthorized", "Unauthorized"));
        return;
      }
      String path = exchange.getRequestURI().getPath();
      if (path.equals("/api/v1/nodes") && exchange.getRequestMethod().equals("GET")) {
        answer(exchange, call, 200, nodeList());
      } else if (path.equals(KUBEADM_CONFIG) && clusterConfiguration != null) {
        if (exchange.getRequestMethod().equals("GET")) {
          answer(exchange, call, 200, configMap());
        } else if (exchange.getRequestMethod().equals("PUT")) {
          put(exchange, call);
        } else {
          answer(exchange, call, 405, status(405, "MethodNotAllowed", "method not allowed"));
        }
      } else {
        answer(exchange, call, 404, status(404, "NotFound", path + " not found"));
      }
    } catch (RuntimeException e) {
      answer(exchange, call, 500, status(500, "InternalError", e.toString()));
    }
  }

  private synchronized void put(HttpExchange exchange, String call) throws IOException {
    JsonNode body = JSON.readTree(exchange.getRequestBody());
    if (beforeNextPut != null) {
      writtenBySomeoneElse(beforeNextPut);
      beforeNextPut = null;
    }
    String sent = body.path("metadata").path("resourceVersion").asText("");
    if (!sent.equals(String.valueOf(resourceVersion.get()))) {
      answer(
          exchange,
          call,
          409,
          status(
              409,
              "Conflict",
              "Operation cannot be fulfilled on configmaps \"kubeadm-config\": the object has"
                  + " been modified; please apply your changes to the latest version and try"
                  + " again"));
      return;
    }
    clusterConfiguration = body.path("data").path("ClusterConfiguration").asText();
    resourceVersion.incrementAndGet();
    answer(exchange, call, 200, configMap());
  }

  private boolean authorized(HttpsExchange exchange) {
    String header = exchange.getRequestHeaders().getFirst("Authorization");
    if (header != null) return header.equals("Bearer " + token);
    try {
      // the handshake checked the chain against the CA
      return exchange.getSSLSession().getPeerCertificates().length > 0;
    } catch (SSLPeerUnverifiedException e) {
      return false;
    }
  }

  private ObjectNode configMap() {
    ObjectNode map = JSON.createObjectNode();
    map.put("apiVersion", "v1").put("kind", "ConfigMap");
    map.putObject("metadata")
        .put("name", "kubeadm-config")
        .put("namespace", "kube-system")
        .put("resourceVersion", String.valueOf(resourceVersion.get()));
    map.putObject("data").put("ClusterConfiguration", clusterConfiguration);
    return map;
  }

  private ObjectNode nodeList() {
    ObjectNode list = JSON.createObjectNode();
    list.put("apiVersion", "v1").put("kind", "NodeList");
    ArrayNode items = list.putArray("items");
    synchronized (nodes) {
      flapping.replaceAll((name, looks) -> looks - 1);
      flapping.forEach(
          (name, looks) -> {
            if (looks < 0) nodes.put(name, false);
          });
      nodes.forEach(
          (name, ready) -> {
            ObjectNode node = items.addObject();
            node.putObject("metadata").put("name", name);
            ArrayNode conditions = node.putObject("status").putArray("conditions");
            conditions
                .addObject()
                .put("type", "MemoryPressure")
                .put("status", "False")
                .put("reason", "KubeletHasSufficientMemory");
            conditions
                .addObject()
                .put("type", "Ready")
                .put("status", ready ? "True" : "Unknown")
                .put("reason", ready ? "KubeletReady" : "NodeStatusUnknown");
          });
    }
    return list;
  }

  private static ObjectNode status(int code, String reason, String message) {
    ObjectNode status = JSON.createObjectNode();
    status.put("kind", "Status").put("apiVersion", "v1").put("status", "Failure");
    status.put("message", message).put("reason", reason).put("code", code);
    return status;
  }

  private void answer(HttpExchange exchange, String call, int code, JsonNode body)
      throws IOException {
    requests.add(code == 200 ? call : call + " " + code);
    byte[] bytes = JSON.writeValueAsBytes(body);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(code, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  private static SSLContext serverContext(TestCertificates.Issued serving, Path caFile)
      throws Exception {
    KeyStore keys = KeyStore.getInstance("PKCS12");
    keys.load(null, null);
    keys.setKeyEntry(
        "apiserver",
        TlsMaterial.readPrivateKey(serving.key()),
        new char[0],
        TlsMaterial.readCertificates(serving.cert()).toArray(Certificate[]::new));
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(keys, new char[0]);
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    trust.setCertificateEntry("ca", TlsMaterial.readCertificates(caFile).get(0));
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
    return context;
  }

  private static String kubeconfig(String url, String ca, String user) {
    return """
        apiVersion: v1
        kind: Config
        clusters:
        - name: kubernetes
          cluster:
            server: %s
            certificate-authority-data: %s
        contexts:
        - name: kubernetes-admin@kubernetes
          context:
            cluster: kubernetes
            user: kubernetes-admin
        current-context: kubernetes-admin@kubernetes
        users:
        - name: kubernetes-admin
          user:
            %s
        """
        .formatted(url, ca, user);
  }

  private static Path secret(Path file, String content) throws IOException {
    Files.writeString(file, content, StandardCharsets.UTF_8);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    return file;
  }

  private static String token() {
    byte[] random = new byte[16];
    new java.security.SecureRandom().nextBytes(random);
    return java.util.HexFormat.of().formatHex(random);
  }

  private static String base64(byte[] bytes) {
    return Base64.getEncoder().encodeToString(bytes);
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
