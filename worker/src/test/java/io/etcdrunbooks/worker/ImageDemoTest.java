package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import io.etcdrunbooks.activities.release.LocalDirReleaseStore;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.testkit.EtcdTestCluster;
import io.etcdrunbooks.testkit.Ports;
import io.etcdrunbooks.testkit.SandboxMain;
import io.etcdrunbooks.testkit.TemporalDevServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo (README's main job) with the product inside the image: podman runs the image as the
 * chart would (read-only root, user 10001, /tmp a tmpfs), its worker and API against the real
 * Temporal server ({@code temporal server start-dev}) on the host's network, its etcd binaries from
 * the image's own /opt/etcd-runbooks/releases; a 3-member sandbox at 3.3.25 with keys is upgraded
 * to 3.5.30 through the image's API, and afterwards every member runs 3.5.30 and holds the same
 * keys. Tag {@code image}: only in the image profile, after Jib.
 */
@Tag("image")
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class ImageDemoTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String FROM = "3.3.25";
  private static final String TO = "3.5.30";
  private static final int KEYS = 200;
  private static final String IMAGE_RELEASES = "/opt/etcd-runbooks/releases";

  @Test
  void upgradesTheDemoSandboxWithTheWorkerAndApiInsideTheImage(@TempDir Path dir) throws Exception {
    assumeThat(ImagePodman.missing()).isEmpty();
    Path target = Path.of(System.getProperty("etcd-runbooks.product-dir", "target"));
    ImagePodman podman = ImagePodman.in(target);
    String image = podman.load(target.resolve("jib-image.tar"));
    try (EtcdTestCluster sandbox =
            SandboxMain.create(
                dir,
                "sandbox",
                3,
                FROM,
                "plain",
                new LocalDirReleaseStore(LocalDirReleaseStore.defaultDir()));
        TemporalDevServer temporal = TemporalDevServer.start(dir.resolve("temporal"))) {
      List<MemberSpec> members = sandbox.cluster().members();
      Map<String, String> before = writeKeys(members);
      String token = HexFormat.of().formatHex(random());
      int apiPort = Ports.free();
      String container =
          podman.start(
              "etcd-runbooks-demo-" + apiPort,
              List.of(
                  "--volume",
                  dir + ":" + dir,
                  "--env",
                  "TEMPORAL_ADDRESS=" + temporal.address(),
                  "--env",
                  "ETCD_RUNBOOKS_INVENTORY=" + imageInventory(sandbox.inventoryFile()),
                  "--env",
                  "ETCD_RUNBOOKS_API_PORT=" + apiPort,
                  "--env",
                  "ETCD_RUNBOOKS_API_TOKENS_FILE=" + tokensFile(dir, token),
                  "--env",
                  "ETCD_RUNBOOKS_CODEC_KEYS_FILE=" + codecKeysFile(dir),
                  "--env",
                  "ETCD_RUNBOOKS_SCHEDULES_ENABLED=false"),
              image);
      try {
        JsonNode view =
            upgradeThroughApi(
                "http://127.0.0.1:" + apiPort, "Bearer " + token, () -> podman.running(container));
        assertThat(view.path("status").asText())
            .as("the upgrade's view %s; the container's log:%n%s", view, podman.logs(container))
            .isEqualTo("COMPLETED");
        JsonNode versions = view.path("result").path("memberVersions");
        assertThat(versions.size()).isEqualTo(3);
        versions.forEach(v -> assertThat(v.asText()).isEqualTo(TO));
        assertThat(view.path("result").path("clusterVersion").asText()).startsWith("3.5");
        assertThat(readKeys(members)).isEqualTo(before);
      } finally {
        podman.remove(container);
      }
    }
  }

  /**
   * The sandbox's inventory with the image's releases, and the files the worker reads made its own:
   * user 10001 reads them, as the chart's volumes are mounted for it.
   */
  private static String imageInventory(Path inventory) throws IOException {
    Path dir = inventory.getParent();
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    String yaml =
        Files.readString(inventory)
            .replaceFirst("localDir: \"[^\"]*\"", "localDir: \"" + IMAGE_RELEASES + "\"");
    assertThat(yaml).contains(IMAGE_RELEASES);
    Path forImage = dir.resolve("image-inventory.yaml");
    Files.writeString(forImage, yaml);
    Files.createDirectories(dir.resolve("backups"));
    List<Path> owned =
        new ArrayList<>(List.of(forImage, dir.resolve("backups"), dir.resolve("ssh")));
    try (Stream<Path> ssh = Files.list(dir.resolve("ssh"));
        Stream<Path> top = Files.list(dir)) {
      ssh.forEach(owned::add);
      top.filter(p -> p.getFileName().toString().endsWith(".key")).forEach(owned::add);
    }
    for (Path p : owned) {
      Files.setAttribute(p, "unix:uid", 10001);
      Files.setAttribute(p, "unix:gid", 10001);
    }
    return forImage.toString();
  }

  private static String tokensFile(Path dir, String token) throws Exception {
    String sha256 =
        HexFormat.of()
            .formatHex(
                MessageDigest.getInstance("SHA-256")
                    .digest(token.getBytes(StandardCharsets.UTF_8)));
    return ownedBy10001(
        dir.resolve("api-tokens.yaml"),
        "tokens:\n  - name: demo\n    sha256: " + sha256 + "\n    role: operator\n");
  }

  private static String codecKeysFile(Path dir) throws IOException {
    return ownedBy10001(
        dir.resolve("codec-keys.yaml"),
        "current: demo\nkeys:\n  demo: " + Base64.getEncoder().encodeToString(random()) + "\n");
  }

  private static String ownedBy10001(Path file, String text) throws IOException {
    Files.createFile(
        file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(file, text);
    Files.setAttribute(file, "unix:uid", 10001);
    Files.setAttribute(file, "unix:gid", 10001);
    return file.toString();
  }

  private static byte[] random() {
    byte[] bytes = new byte[32];
    new java.security.SecureRandom().nextBytes(bytes);
    return bytes;
  }

  /** Starts the upgrade as the demo does and follows it until it ends; returns the last view. */
  private static JsonNode upgradeThroughApi(
      String api, String authorization, Callable<Boolean> containerRunning) throws Exception {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    Instant deadline = Instant.now().plus(Duration.ofMinutes(8));
    HttpResponse<String> started = null;
    while (Instant.now().isBefore(deadline)) {
      try {
        started =
            http.send(
                HttpRequest.newBuilder(URI.create(api + "/api/v1/clusters/sandbox/upgrade"))
                    .header("Content-Type", "application/json")
                    .header("Authorization", authorization)
                    .POST(
                        HttpRequest.BodyPublishers.ofString(
                            "{\"targetVersion\":\"" + TO + "\",\"dryRun\":false}"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        break;
      } catch (IOException notUpYet) {
        if (!containerRunning.call()) {
          break;
        }
        TimeUnit.MILLISECONDS.sleep(500);
      }
    }
    if (started == null) {
      return JSON.createObjectNode().put("status", "the image's API never answered on " + api);
    }
    JsonNode body = JSON.readTree(started.body());
    assertThat(body.hasNonNull("workflowId")).as(started.body()).isTrue();
    String id = body.get("workflowId").asText();
    JsonNode view;
    do {
      TimeUnit.MILLISECONDS.sleep(500);
      view =
          JSON.readTree(
              http.send(
                      HttpRequest.newBuilder(URI.create(api + "/api/v1/runbooks/" + id))
                          .header("Authorization", authorization)
                          .GET()
                          .build(),
                      HttpResponse.BodyHandlers.ofString())
                  .body());
    } while ("RUNNING".equals(view.path("status").asText()) && Instant.now().isBefore(deadline));
    return view;
  }

  /** Writes {@link #KEYS} keys; returns them. */
  private static Map<String, String> writeKeys(List<MemberSpec> members) throws Exception {
    Map<String, String> written = new TreeMap<>();
    try (Client client = client(members)) {
      for (int i = 0; i < KEYS; i++) {
        String key = "/registry/demo/key-" + i;
        client.getKVClient().put(bytes(key), bytes("value-" + i)).get(10, TimeUnit.SECONDS);
        written.put(key, "value-" + i);
      }
    }
    return written;
  }

  private static Map<String, String> readKeys(List<MemberSpec> members) throws Exception {
    Map<String, String> read = new TreeMap<>();
    try (Client client = client(members)) {
      for (KeyValue kv :
          client
              .getKVClient()
              .get(bytes("/registry/demo/"), GetOption.builder().isPrefix(true).build())
              .get(10, TimeUnit.SECONDS)
              .getKvs()) {
        read.put(
            kv.getKey().toString(StandardCharsets.UTF_8),
            kv.getValue().toString(StandardCharsets.UTF_8));
      }
    }
    return read;
  }

  private static Client client(List<MemberSpec> members) {
    return Client.builder()
        .endpoints(members.stream().map(MemberSpec::clientUrl).toArray(String[]::new))
        .build();
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }
}
