package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * deploy/helm/etcd-runbooks rendered by helm with each value set of its ci/ directory (default, HA:
 * two workers and two API pods, minimal), every object validated by kubeconform ({@code -strict}:
 * unknown fields refused) against the schemas of the oldest and newest Kubernetes release
 * deploy/scripts/fetch-helm.sh pins, none skipped, and every reference resolved ({@link
 * ManifestReferences}). helm, kubeconform and the schemas come from that script's cache: nothing is
 * downloaded here.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class HelmChartTest {

  private static final Path DEPLOY = Path.of("..", "deploy");
  private static final Path CHART = DEPLOY.resolve("helm/etcd-runbooks");
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"default", "ha", "minimal"})
  void everyObjectIsValidForEveryKubernetesReleaseAndEveryReferenceResolves(String values)
      throws Exception {
    List<String> releases = kubernetesReleases();
    assertThat(releases).hasSizeGreaterThanOrEqualTo(2);
    for (String release : releases) {
      Path rendered = dir.resolve(values + "-" + release + ".yaml");
      run(
          rendered,
          tool("helm"),
          "template",
          "rel",
          CHART.toString(),
          "--namespace",
          "etcd-runbooks",
          "--kube-version",
          release,
          "--values",
          CHART.resolve("ci/" + values + "-values.yaml").toString());
      List<JsonNode> objects = objects(Files.readString(rendered));
      assertThat(objects).as("objects rendered with %s values", values).isNotEmpty();

      String report =
          run(
              dir.resolve("kubeconform.json"),
              tool("kubeconform"),
              "-strict",
              "-summary",
              "-output",
              "json",
              "-kubernetes-version",
              release,
              "-schema-location",
              schemas()
                  + "/{{ .NormalizedKubernetesVersion }}"
                  + "/{{ if .StrictSuffix }}strict{{ else }}loose{{ end }}"
                  + "/{{ .ResourceKind }}{{ .KindSuffix }}.json",
              rendered.toString());
      JsonNode summary = JSON.readTree(report).path("summary");
      assertThat(summary.path("valid").asInt())
          .as("%s values on Kubernetes %s: %s", values, release, report)
          .isEqualTo(objects.size());
      assertThat(summary.path("skipped").asInt()).as(report).isZero();

      assertThat(ManifestReferences.unresolved(objects))
          .as("%s values on Kubernetes %s", values, release)
          .isEmpty();
    }
  }

  @Test
  void valuesTheSchemaDoesNotKnowOrThatLackTheTemporalAddressAreRefusedNamingThem()
      throws Exception {
    assertThat(
            refusal(
                "--values",
                CHART.resolve("ci/default-values.yaml").toString(),
                "--set",
                "worker.replica=2"))
        .contains("at '/worker': additional properties 'replica' not allowed");
    assertThat(refusal()).contains("at '/temporal/address'");
  }

  /**
   * The image the chart runs by default is the one {@code mvn -Pimage} builds: Jib's name ({@code
   * image.name} in worker/pom.xml) under the chart's repository, tagged with the project version,
   * which is the chart's appVersion (a version bump that forgets the chart fails here).
   */
  @Test
  void theDefaultImageIsTheOneTheImageBuildNamesTaggedWithTheProjectVersion() throws Exception {
    String version = projectVersion();
    JsonNode chart = new YAMLMapper().readTree(CHART.resolve("Chart.yaml").toFile());
    assertThat(chart.path("appVersion").asText()).as("Chart.yaml appVersion").isEqualTo(version);
    Matcher jib =
        Pattern.compile("<image\\.name>([^<:]+):\\$\\{project\\.version\\}</image\\.name>")
            .matcher(Files.readString(Path.of("pom.xml")));
    assertThat(jib.find()).as("worker/pom.xml names the image <name>:${project.version}").isTrue();
    String repository =
        new YAMLMapper()
            .readTree(CHART.resolve("values.yaml").toFile())
            .path("image")
            .path("repository")
            .asText();
    assertThat(repository).endsWith("/" + jib.group(1));

    Path rendered = dir.resolve("default.yaml");
    run(
        rendered,
        tool("helm"),
        "template",
        "rel",
        CHART.toString(),
        "--kube-version",
        "1.35.4",
        "--values",
        CHART.resolve("ci/default-values.yaml").toString());
    List<String> images = new ArrayList<>();
    for (JsonNode object : objects(Files.readString(rendered))) {
      if (!object.path("kind").asText().equals("Deployment")) continue;
      JsonNode pod = object.path("spec").path("template").path("spec");
      for (String list : List.of("initContainers", "containers"))
        pod.path(list).forEach(c -> images.add(c.path("image").asText()));
    }
    assertThat(images).isNotEmpty().containsOnly(repository + ":" + version);
  }

  /** The version of the reactor's root pom.xml (every module inherits it). */
  private static String projectVersion() throws IOException {
    Matcher m =
        Pattern.compile("<artifactId>etcd-runbooks</artifactId>\\s*<version>([^<]+)</version>")
            .matcher(Files.readString(Path.of("..", "pom.xml")));
    if (!m.find()) throw new IllegalStateException("no version in the root pom.xml");
    return m.group(1);
  }

  /** What helm says when it refuses to render the chart with these options. */
  private String refusal(String... options) throws Exception {
    List<String> command =
        new ArrayList<>(
            List.of(tool("helm"), "template", "rel", CHART.toString(), "--kube-version", "1.35.4"));
    command.addAll(List.of(options));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(90, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as(output).isNotZero();
    return output;
  }

  @Test
  void theReferenceCheckNamesWhatTheUncheckedManifestUsedWithoutDefiningIt() throws Exception {
    String old;
    try (InputStream in = getClass().getResourceAsStream("/helm/unchecked-manifest.yaml")) {
      old = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }

    assertThat(ManifestReferences.unresolved(objects(old)))
        .anySatisfy(
            m ->
                assertThat(m)
                    .startsWith(
                        "PersistentVolumeClaim/etcd-runbooks-backups: used by"
                            + " Deployment/etcd-runbooks-worker volume backups"))
        .anySatisfy(
            m ->
                assertThat(m)
                    .startsWith(
                        "ConfigMap/etcd-runbooks-inventory: used by"
                            + " Deployment/etcd-runbooks-worker volume inventory-seed"))
        .anySatisfy(m -> assertThat(m).startsWith("Secret/etcd-runbooks-ssh: used by"));
  }

  /** The Kubernetes releases fetch-helm.sh pins (K8S_MODULES), the chart's oldest and newest. */
  private static List<String> kubernetesReleases() throws IOException {
    Matcher m =
        Pattern.compile("^  \"(\\d+\\.\\d+\\.\\d+) h1:", Pattern.MULTILINE)
            .matcher(Files.readString(DEPLOY.resolve("scripts/fetch-helm.sh")));
    List<String> releases = new ArrayList<>();
    while (m.find()) releases.add(m.group(1));
    return releases;
  }

  private static Path cache() {
    String cache = System.getenv("ETCD_RUNBOOKS_CACHE");
    return cache != null && !cache.isBlank()
        ? Path.of(cache)
        : Path.of(System.getProperty("user.home"), ".cache", "etcd-runbooks");
  }

  private static Path schemas() {
    return cache().resolve("kubernetes-schemas");
  }

  /** A binary fetch-helm.sh built, at the versions deploy/helm-tools/go.mod pins. */
  private static String tool(String name) throws IOException {
    String goMod = Files.readString(DEPLOY.resolve("helm-tools/go.mod"));
    Path bin =
        cache()
            .resolve("helm-tools")
            .resolve(
                pinned(goMod, "helm.sh/helm/v3")
                    + "-"
                    + pinned(goMod, "github.com/yannh/kubeconform"))
            .resolve("bin")
            .resolve(name);
    if (!Files.isExecutable(bin)) {
      throw new IllegalStateException(
          bin
              + " is missing: run deploy/scripts/fetch-helm.sh (it builds helm and kubeconform"
              + " and makes the Kubernetes schemas, from the Go module proxy)");
    }
    return bin.toString();
  }

  private static String pinned(String goMod, String module) {
    Matcher m = Pattern.compile("\\s" + Pattern.quote(module) + " (v\\S+)").matcher(goMod);
    if (!m.find())
      throw new IllegalStateException("deploy/helm-tools/go.mod does not pin " + module);
    return m.group(1);
  }

  /** Runs a command to its end; its standard output goes to {@code out} and is returned. */
  private static String run(Path out, String... command) throws Exception {
    Path errors = Files.createTempFile(out.getParent(), "stderr", ".txt");
    Process process =
        new ProcessBuilder(command)
            .redirectOutput(out.toFile())
            .redirectError(errors.toFile())
            .start();
    if (!process.waitFor(90, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError(String.join(" ", command) + " did not end within 90 s");
    }
    String output = Files.readString(out);
    assertThat(process.exitValue())
        .as("%s\n%s\n%s", String.join(" ", command), output, Files.readString(errors))
        .isZero();
    return output;
  }

  private static List<JsonNode> objects(String yaml) throws IOException {
    List<JsonNode> objects = new ArrayList<>();
    try (var documents = new YAMLMapper().readerFor(JsonNode.class).readValues(yaml)) {
      while (documents.hasNext()) {
        JsonNode document = (JsonNode) documents.next();
        if (document != null && document.has("kind")) objects.add(document);
      }
    }
    return objects;
  }
}
