package io.etcdrunbooks.activities.release;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.etcdrunbooks.activities.host.BinaryInstaller;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Downloads a release tarball, built here from the cached 3.5.30 binaries, from a local HTTP
 * server.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class UrlTemplateReleaseStoreTest {

  private static final String VERSION = "3.5.30";

  private HttpServer server;
  private Path tarball;
  private String sha256;
  private String template;
  private final AtomicInteger downloads = new AtomicInteger();

  @BeforeAll
  void serveTarball(@TempDir Path tmp) throws Exception {
    Path root = Files.createDirectories(tmp.resolve("etcd-v" + VERSION + "-linux-amd64"));
    for (String name : List.of("etcd", "etcdctl", "etcdutl")) {
      Files.copy(cachedBin().resolve(name), root.resolve(name));
    }
    tarball = tmp.resolve("etcd-v" + VERSION + "-linux-amd64.tar.gz");
    Process tar =
        new ProcessBuilder(
                "tar",
                "-I",
                "gzip -1",
                "-cf",
                tarball.toString(),
                "-C",
                tmp.toString(),
                root.getFileName().toString())
            .inheritIO()
            .start();
    assertThat(tar.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(tar.exitValue()).isZero();
    sha256 = BinaryInstaller.sha256Of(tarball);

    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/etcd/",
        exchange -> {
          String path = exchange.getRequestURI().getPath();
          if (!path.equals("/etcd/v" + VERSION + "/etcd-v" + VERSION + "-linux-amd64.tar.gz")) {
            exchange.sendResponseHeaders(404, -1);
            exchange.close();
            return;
          }
          downloads.incrementAndGet();
          exchange.sendResponseHeaders(200, Files.size(tarball));
          try (OutputStream out = exchange.getResponseBody()) {
            Files.copy(tarball, out);
          }
        });
    server.start();
    template =
        "http://127.0.0.1:"
            + server.getAddress().getPort()
            + "/etcd/v{version}/etcd-v{version}-linux-amd64.tar.gz";
  }

  @AfterAll
  void stopServer() {
    if (server != null) server.stop(0);
  }

  @Test
  void aTarballWithTheRightChecksumIsUnpackedOnce(@TempDir Path downloadDir) throws Exception {
    UrlTemplateReleaseStore store =
        new UrlTemplateReleaseStore(template, Map.of(VERSION, sha256.toUpperCase()), downloadDir);
    int before = downloads.get();

    Path bin = store.binDir(VERSION);

    assertThat(bin).isEqualTo(downloadDir.resolve(VERSION).resolve("bin"));
    for (String name : List.of("etcd", "etcdctl", "etcdutl")) {
      assertThat(bin.resolve(name)).isExecutable();
      assertThat(BinaryInstaller.sha256Of(bin.resolve(name)))
          .isEqualTo(BinaryInstaller.sha256Of(cachedBin().resolve(name)));
    }
    Process version =
        new ProcessBuilder(bin.resolve("etcd").toString(), "--version")
            .redirectErrorStream(true)
            .start();
    assertThat(new String(version.getInputStream().readAllBytes()))
        .contains("etcd Version: " + VERSION);
    assertThat(version.waitFor(10, TimeUnit.SECONDS)).isTrue();

    assertThat(store.binDir(VERSION)).isEqualTo(bin);
    assertThat(downloads.get() - before).isEqualTo(1);
    assertThat(store.versions()).containsExactly(VERSION);
    try (var entries = Files.list(downloadDir)) {
      assertThat(entries.map(p -> p.getFileName().toString())).containsExactly(VERSION);
    }
  }

  @Test
  void aTarballWithAnotherChecksumIsRefusedAndDiscarded(@TempDir Path downloadDir)
      throws Exception {
    String wrong = "0".repeat(64);
    UrlTemplateReleaseStore store =
        new UrlTemplateReleaseStore(template, Map.of(VERSION, wrong), downloadDir);

    assertThatThrownBy(() -> store.binDir(VERSION))
        .isInstanceOf(ReleaseChecksumException.class)
        .hasMessageContaining("etcd " + VERSION)
        .hasMessageContaining(sha256)
        .hasMessageContaining(wrong);
    try (var entries = Files.list(downloadDir)) {
      assertThat(entries).isEmpty();
    }
  }

  @Test
  void aVersionWithoutAConfiguredChecksumIsNotDownloaded(@TempDir Path downloadDir) {
    UrlTemplateReleaseStore store =
        new UrlTemplateReleaseStore(template, Map.of("3.5.16", "ab".repeat(32)), downloadDir);
    int before = downloads.get();

    assertThatThrownBy(() -> store.binDir(VERSION))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("etcd " + VERSION + " has no SHA-256");
    assertThat(downloads.get()).isEqualTo(before);
    assertThat(store.versions()).containsExactly("3.5.16");
  }

  @Test
  void theLocalDirectoryComesFirstThenTheUrlTemplate(@TempDir Path downloadDir) {
    ReleaseStore store =
        ReleaseStores.from(
            new io.etcdrunbooks.inventory.ReleaseSource(
                LocalDirReleaseStore.defaultDir().toString(),
                template,
                Map.of(VERSION, sha256, "3.6.0", "cd".repeat(32)),
                downloadDir.toString()));
    int before = downloads.get();

    assertThat(store.versions()).contains("3.4.23", "3.5.16", VERSION, "3.6.0");
    assertThat(store.binDir(VERSION))
        .isEqualTo(LocalDirReleaseStore.defaultDir().resolve(VERSION).resolve("bin"));
    assertThat(downloads.get()).isEqualTo(before);
    assertThatThrownBy(() -> store.binDir("3.7.0")).hasMessageContaining("3.7.0");
  }

  /**
   * The cached release deploy/scripts/fetch-etcd.sh put in place; fails naming the script when it
   * is missing.
   */
  private static Path cachedBin() {
    return new LocalDirReleaseStore(LocalDirReleaseStore.defaultDir()).binDir(VERSION);
  }
}
