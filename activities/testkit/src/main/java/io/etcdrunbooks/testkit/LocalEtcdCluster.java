package io.etcdrunbooks.testkit;

import io.etcdrunbooks.activities.etcd.TlsMaterial;
import io.etcdrunbooks.activities.release.ReleaseStore;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.Inventory;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.inventory.ReleaseSource;
import io.etcdrunbooks.inventory.ServiceSpec;
import io.etcdrunbooks.inventory.SshSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Test-only: N real etcd processes of one cached version on 127.0.0.1 (free ports), started directly, no SSH,
 * with an {@link Inventory} that names them. Unlike the sandbox it can serve https with client certificates;
 * the TLS tests use it (fold into the sandbox once it supports TLS).
 */
public final class LocalEtcdCluster implements AutoCloseable {

  private static final Duration START_TIMEOUT = Duration.ofSeconds(30);

  private final String name;
  private final String version;
  private final Path dir;
  private final List<MemberSpec> members;
  private final TestCertificates.Material tls;
  private final Map<String, Process> processes = new LinkedHashMap<>();

  private LocalEtcdCluster(String name, String version, Path dir, List<MemberSpec> members, TestCertificates.Material tls) {
    this.name = name;
    this.version = version;
    this.dir = dir;
    this.members = members;
    this.tls = tls;
  }

  public static ReleaseStore releaseStore() {
    return EtcdReleases.store();
  }

  /**
   * Starts {@code size} members m1..mN of {@code version} under {@code dir} and waits until each is healthy.
   * Tries again with new ports when a start fails: a port found free may be taken by a concurrent test run.
   */
  public static LocalEtcdCluster start(Path dir, String clusterName, String version, int size) {
    return start(dir, clusterName, version, size, null);
  }

  /** As {@link #start(Path, String, String, int)}, with https client URLs that require a client certificate when tls is set. */
  public static LocalEtcdCluster start(Path dir, String clusterName, String version, int size, TestCertificates.Material tls) {
    for (int attempt = 1; ; attempt++) {
      try {
        return startOnce(dir.resolve("attempt-" + attempt), clusterName, version, size, tls);
      } catch (IllegalStateException e) {
        if (attempt == 3) throw e;
      }
    }
  }

  private static LocalEtcdCluster startOnce(Path dir, String clusterName, String version, int size, TestCertificates.Material tls) {
    Path etcd = releaseStore().binDir(version).resolve("etcd");
    List<MemberSpec> members = new ArrayList<>();
    for (int i = 1; i <= size; i++) {
      String member = "m" + i;
      Path home = dir.resolve(member);
      members.add(new MemberSpec(member, "127.0.0.1", 0, (tls == null ? "http" : "https") + "://127.0.0.1:" + freePort(), "http://127.0.0.1:" + freePort(),
          home.resolve("data").toString(), home.resolve("install").toString(), home.toString()));
    }
    LocalEtcdCluster cluster = new LocalEtcdCluster(clusterName, version, dir, List.copyOf(members), tls);
    try {
      String initialCluster = String.join(",", members.stream().map(m -> m.name() + "=" + m.peerUrl()).toList());
      for (MemberSpec m : members) {
        Files.createDirectories(Path.of(m.serviceDir()));
        cluster.processes.put(m.name(), cluster.launch(etcd, m, initialCluster));
      }
      cluster.awaitHealthy();
      return cluster;
    } catch (IOException | RuntimeException e) {
      cluster.close();
      throw e instanceof IOException io ? new UncheckedIOException(io) : (RuntimeException) e;
    }
  }

  private Process launch(Path etcd, MemberSpec m, String initialCluster) throws IOException {
    List<String> command = new ArrayList<>(List.of(etcd.toString(),
        "--name", m.name(),
        "--data-dir", m.dataDir(),
        "--listen-client-urls", m.clientUrl(),
        "--advertise-client-urls", m.clientUrl(),
        "--listen-peer-urls", m.peerUrl(),
        "--initial-advertise-peer-urls", m.peerUrl(),
        "--initial-cluster", initialCluster,
        "--initial-cluster-token", name + "-" + dir.getFileName(),
        "--initial-cluster-state", "new",
        "--heartbeat-interval", "50",
        "--election-timeout", "500"));
    if (tls != null) {
      command.addAll(List.of("--cert-file", tls.serverCert().toString(), "--key-file", tls.serverKey().toString(),
          "--trusted-ca-file", tls.client().caFile(), "--client-cert-auth"));
    }
    ProcessBuilder builder = new ProcessBuilder(command);
    Path log = Path.of(m.serviceDir(), "etcd.log");
    builder.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    return builder.start();
  }

  private void awaitHealthy() {
    HttpClient.Builder httpBuilder = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1));
    if (tls != null) httpBuilder.sslContext(TlsMaterial.load(tls.client()).sslContext());
    HttpClient http = httpBuilder.build();
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    for (MemberSpec m : members) {
      while (!healthy(http, m)) {
        Process p = processes.get(m.name());
        if (!p.isAlive()) throw new IllegalStateException("etcd " + version + " member " + m.name() + " exited: " + logTail(m));
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("etcd " + version + " member " + m.name() + " not healthy within " + START_TIMEOUT + ": " + logTail(m));
        }
        sleep(100);
      }
    }
  }

  private static boolean healthy(HttpClient http, MemberSpec m) {
    try {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(m.clientUrl() + "/health")).timeout(Duration.ofSeconds(2)).build(),
          HttpResponse.BodyHandlers.ofString());
      return r.statusCode() == 200 && r.body().replace(" ", "").contains("\"health\":\"true\"");
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  public String clusterName() {
    return name;
  }

  public String version() {
    return version;
  }

  public List<MemberSpec> members() {
    return members;
  }

  public ClusterSpec cluster() {
    return new ClusterSpec(name, members, new ServiceSpec(ServiceSpec.PLAIN, null), new SshSpec("unused", 0, "/unused", "/unused"),
        tls == null ? null : tls.client(),
        dir.resolve("backups").toString(), List.of(), null);
  }

  public Inventory inventory() {
    return new Inventory(new ReleaseSource(EtcdReleases.dir().toString(), null, Map.of(), null), Map.of(name, cluster()));
  }

  /** SIGKILL, as a crash: no leadership hand-over. */
  public void kill(String member) {
    Process p = processes.get(member);
    if (p == null) throw new IllegalArgumentException("no member " + member);
    p.destroyForcibly();
    try {
      if (!p.waitFor(10, TimeUnit.SECONDS)) throw new IllegalStateException(member + " did not die");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  public String logTail(MemberSpec m) {
    try {
      List<String> lines = Files.readAllLines(Path.of(m.serviceDir(), "etcd.log"));
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  @Override
  public void close() {
    processes.values().forEach(Process::destroyForcibly);
    for (Process p : processes.values()) {
      try {
        p.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
