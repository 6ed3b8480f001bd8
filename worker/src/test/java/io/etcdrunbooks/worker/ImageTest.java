package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The image {@code mvn -Pimage package} makes (target/jib-image.tar, OCI layout) is the product:
 * read without running it, its config runs the product jar as user 10001, and its layers hold the
 * product jar with exactly target/lib's libraries, a JRE jlinked from Debian's openjdk-17 with a
 * trust store, the shell tools the chart's init container uses, and etcd, etcdctl (and etcdutl) of
 * every release in deploy/etcd-releases.tsv under /opt/etcd-runbooks/releases, executable. Where
 * podman runs containers, the image is also started read-only as user 10001. Tag {@code image}:
 * only in the image profile's surefire execution, after Jib.
 */
@Tag("image")
class ImageTest {

  private static final String RELEASES = "opt/etcd-runbooks/releases/";
  private static final ObjectMapper JSON = new ObjectMapper();

  private static Path target;
  private static JsonNode config;
  private static final List<String> layers = new ArrayList<>();

  /** Every file of every layer, path without the leading "/" -> its mode. */
  private static final Map<String, Integer> files = new HashMap<>();

  @BeforeAll
  static void readImage() throws IOException {
    target = Path.of(System.getProperty("etcd-runbooks.product-dir", "target"));
    Path tar = target.resolve("jib-image.tar");
    assertThat(tar).as("run mvn -Pimage package first (docs/kubernetes.md#the-image)").exists();
    JsonNode index = JSON.readTree(entry(tar, "index.json"));
    JsonNode manifest = JSON.readTree(entry(tar, blob(index.at("/manifests/0/digest").asText())));
    config = JSON.readTree(entry(tar, blob(manifest.at("/config/digest").asText())));
    manifest.get("layers").forEach(l -> layers.add(blob(l.get("digest").asText())));
    for (String layer : layers) {
      try (TarArchiveInputStream outer = new TarArchiveInputStream(Files.newInputStream(tar))) {
        for (TarArchiveEntry e; (e = outer.getNextEntry()) != null; ) {
          if (e.getName().equals(layer)) {
            readLayer(new GZIPInputStream(outer));
          }
        }
      }
    }
  }

  @Test
  void runsTheProductJarAsUser10001() {
    assertThat(config.at("/config/User").asText()).isEqualTo("10001:10001");
    assertThat(texts(config.at("/config/Entrypoint")))
        .containsExactly("java", "-cp", "@/app/jib-classpath-file", "io.etcdrunbooks.worker.Main");
    assertThat(texts(config.at("/config/Cmd"))).containsExactly("run");
    assertThat(texts(config.at("/config/Env"))).contains("HOME=/tmp");
    assertThat(files).containsKey("app/classpath/etcd-runbooks.jar");
  }

  @Test
  void librariesAreTheProductJarsOnly() throws IOException {
    List<String> lib;
    try (Stream<Path> jars = Files.list(target.resolve("lib"))) {
      lib = jars.map(p -> "app/libs/" + p.getFileName()).toList();
    }
    List<String> inImage =
        files.keySet().stream()
            .filter(f -> f.startsWith("app/libs/") && f.endsWith(".jar"))
            .toList();
    assertThat(inImage).containsExactlyInAnyOrderElementsOf(lib);
  }

  @Test
  void holdsDebiansJreAndTheInitContainersTools() {
    assertThat(files)
        .containsKeys(
            "usr/lib/jvm/java-17-openjdk-amd64/bin/java",
            "usr/bin/java",
            "etc/ssl/certs/java/cacerts",
            "bin/sh",
            "bin/cat",
            "bin/cp",
            "bin/mv",
            "bin/mkdir",
            "bin/chmod",
            "usr/bin/basename",
            "bin/tar",
            "bin/gzip",
            "usr/share/zoneinfo/UTC");
    assertThat(files.get("usr/lib/jvm/java-17-openjdk-amd64/bin/java") & 0111).isEqualTo(0111);
    assertThat(files.get("etc/passwd")).isNotNull();
  }

  @Test
  void holdsEveryReleaseOfTheReleasesFile() throws IOException {
    for (String version : releases()) {
      for (String tool : List.of("etcd", "etcdctl")) {
        String path = RELEASES + version + "/bin/" + tool;
        assertThat(files).as(path).containsKey(path);
        assertThat(files.get(path) & 0111).as(path + " executable by all").isEqualTo(0111);
      }
    }
  }

  /**
   * The CycloneDX SBOM beside the image names everything the image runs: the product jar (its
   * metadata's component), every library in /app/libs (a Maven component of that file's name),
   * every etcd binary under /opt/etcd-runbooks/releases (a component at that place, built from the
   * Debian package or etcd's Go module of that release), and Debian's packages of the base.
   */
  @Test
  void itsSbomNamesTheProductEveryLibraryEveryEtcdBinaryAndTheDebianPackages() throws IOException {
    Path file = target.resolve("etcd-runbooks-image.sbom.json");
    assertThat(file).as("the SBOM is written by the image profile with Maven online").exists();
    JsonNode sbom = JSON.readTree(file.toFile());
    assertThat(sbom.path("bomFormat").asText()).isEqualTo("CycloneDX");
    assertThat(sbom.at("/metadata/component/purl").asText())
        .startsWith("pkg:maven/io.etcdrunbooks/worker@");
    List<JsonNode> components = new ArrayList<>();
    sbom.path("components").forEach(components::add);

    List<String> mavenFiles =
        components.stream()
            .filter(c -> c.path("purl").asText().startsWith("pkg:maven/"))
            .map(ImageTest::jarName)
            .toList();
    List<String> libs =
        files.keySet().stream()
            .filter(f -> f.startsWith("app/libs/") && f.endsWith(".jar"))
            .map(f -> f.substring("app/libs/".length()))
            .toList();
    assertThat(libs).isNotEmpty();
    assertThat(mavenFiles).as("a component for each jar in /app/libs").containsAll(libs);

    Map<String, String> purlAt = new HashMap<>();
    components.forEach(
        c ->
            c.at("/evidence/occurrences")
                .forEach(o -> purlAt.put(o.path("location").asText(), c.path("purl").asText())));
    List<String> binaries =
        files.keySet().stream()
            .filter(f -> f.startsWith(RELEASES) && !f.endsWith("/") && f.contains("/bin/"))
            .toList();
    assertThat(binaries).hasSizeGreaterThanOrEqualTo(2 * releases().size());
    for (String binary : binaries) {
      String version = binary.substring(RELEASES.length()).split("/")[0];
      assertThat(purlAt.get("/" + binary))
          .as("the component of /" + binary)
          .isNotNull()
          .matches(
              "pkg:golang/go\\.etcd\\.io/etcd/.*@v"
                  + Pattern.quote(version)
                  + "|pkg:deb/debian/etcd-(server|client)@"
                  + Pattern.quote(version)
                  + "[-%].*");
    }

    List<String> debs =
        components.stream()
            .map(c -> c.path("purl").asText())
            .filter(p -> p.startsWith("pkg:deb/debian/") && p.contains("distro=bookworm"))
            .map(p -> p.substring("pkg:deb/debian/".length(), p.indexOf('@')))
            .toList();
    assertThat(debs)
        .as("Debian's packages of the base and those its JRE was jlinked from")
        .contains("libc6", "zlib1g", "ca-certificates", "tzdata", "dash", "coreutils")
        .contains("openjdk-17-jre-headless", "openjdk-17-jdk-headless");
  }

  /** A Maven component's file name as Maven's repository names it: name-version[-classifier].jar */
  private static String jarName(JsonNode component) {
    Matcher classifier =
        Pattern.compile("[?&]classifier=([^&]+)").matcher(component.path("purl").asText());
    return component.path("name").asText()
        + "-"
        + component.path("version").asText()
        + (classifier.find() ? "-" + classifier.group(1) : "")
        + ".jar";
  }

  /** Debian's podman runs the image read-only as 10001 ({@link ImagePodman}): --help answers. */
  @Test
  void startsReadOnlyAsUser10001UnderPodman() throws Exception {
    assumeThat(ImagePodman.missing()).isEmpty();
    ImagePodman podman = ImagePodman.in(target);
    String image = podman.load(target.resolve("jib-image.tar"));
    ImagePodman.Result help = podman.run(List.of(), image, List.of("--help"));
    assertThat(help.exitCode()).as(help.output()).isZero();
    assertThat(help.output()).contains("usage: etcd-runbooks").contains("decrypt-backup");
  }

  /**
   * Without podman, root can still start the image as a runtime would: its layers unpacked, the
   * root read-only, a tmpfs on /tmp as the chart's emptyDir, /proc, the config's environment and
   * entry point, as user 10001. It prints the command's usage, and every release's etcdctl answers
   * with its version.
   */
  @Test
  void startsFromItsLayersReadOnlyAsUser10001(@TempDir Path root) throws Exception {
    assumeThat(System.getProperty("user.name"))
        .as("unpacking and starting the image in a chroot needs root")
        .isEqualTo("root");
    for (String layer : layers) {
      Result untar =
          run(
              List.of(
                  "sh",
                  "-c",
                  "tar -xOf \"$0\" \"$1\" | tar --warning=no-unknown-keyword -xzf - -C \"$2\"",
                  target.resolve("jib-image.tar").toString(),
                  layer,
                  root.toString()));
      assertThat(untar.exitCode()).as(untar.output()).isZero();
    }
    Files.createDirectories(root.resolve("proc"));
    List<String> command = new ArrayList<>(List.of("/usr/bin/env", "-i"));
    command.addAll(texts(config.at("/config/Env")));
    command.addAll(texts(config.at("/config/Entrypoint")));
    command.add("--help");
    Result help = startReadOnly(root, command);
    assertThat(help.exitCode()).as(help.output()).isZero();
    assertThat(help.output()).contains("usage: etcd-runbooks").contains("decrypt-backup");
    for (String version : releases()) {
      Result etcdctl =
          startReadOnly(
              root,
              List.of(
                  "/usr/bin/env",
                  "ETCDCTL_API=3",
                  "/" + RELEASES + version + "/bin/etcdctl",
                  "version"));
      assertThat(etcdctl.output()).as(version).contains("etcdctl version: " + version);
    }
  }

  private static Result startReadOnly(Path root, List<String> command) throws Exception {
    List<String> all =
        new ArrayList<>(
            List.of(
                "unshare",
                "-m",
                "-p",
                "-f",
                "sh",
                "-c",
                "set -e; r=$1; shift; mount --bind \"$r\" \"$r\"; mount -o remount,bind,ro \"$r\";"
                    + " mount -t proc proc \"$r/proc\"; mount -t tmpfs tmpfs \"$r/tmp\";"
                    + " exec chroot --userspec=10001:10001 \"$r\" \"$@\"",
                "sh",
                root.toString()));
    all.addAll(command);
    return run(all);
  }

  private record Result(int exitCode, String output) {}

  private static Result run(List<String> command) throws Exception {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    return new Result(p.exitValue(), out);
  }

  private static List<String> releases() throws IOException {
    return Files.readAllLines(Path.of("..", "deploy", "etcd-releases.tsv")).stream()
        .filter(l -> !l.isBlank() && !l.startsWith("#"))
        .map(l -> l.trim().split("\\s+")[0])
        .toList();
  }

  private static void readLayer(InputStream gzip) throws IOException {
    TarArchiveInputStream layer = new TarArchiveInputStream(gzip);
    for (TarArchiveEntry e; (e = layer.getNextEntry()) != null; ) {
      files.put(e.getName().replaceFirst("^\\./", "").replaceFirst("^/", ""), e.getMode());
    }
  }

  private static byte[] entry(Path tar, String name) throws IOException {
    try (TarArchiveInputStream in = new TarArchiveInputStream(Files.newInputStream(tar))) {
      for (TarArchiveEntry e; (e = in.getNextEntry()) != null; ) {
        if (e.getName().equals(name)) {
          return in.readAllBytes();
        }
      }
    }
    throw new IllegalStateException(name + " is not in " + tar);
  }

  private static String blob(String digest) {
    return "blobs/sha256/" + digest.substring("sha256:".length());
  }

  private static List<String> texts(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }
}
