package io.etcdrunbooks.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * deploy/etcd-releases.tsv is the one list of etcd releases fetched on a fresh machine: what the
 * demo and bench commands start from and the README promises must be in it. (A real-etcd test that
 * asks for another version fails at once: {@link EtcdReleases#binDir} names the file.)
 */
class EtcdReleasesFileTest {

  private static final Pattern VERSION_LITERAL = Pattern.compile("\"(\\d+\\.\\d+\\.\\d+)\"");

  @Test
  void theReadmeNamesExactlyTheFetchedVersions() throws IOException {
    Path root = repositoryRoot();
    Set<String> fetched = fetchedVersions(root.resolve("deploy/etcd-releases.tsv"));
    assertThat(fetched).contains("3.3.25", "3.5.30");
    String readme = Files.readString(root.resolve("README.md"));
    int at = readme.indexOf("they fetch etcd ");
    assertThat(at).as("README's sentence on what the set-up fetches").isPositive();
    Set<String> named = new TreeSet<>();
    Matcher m =
        Pattern.compile("\\d+\\.\\d+\\.\\d+")
            .matcher(readme.substring(at, readme.indexOf(')', at)));
    while (m.find()) named.add(m.group());
    assertThat(named).isEqualTo(fetched);
  }

  @Test
  void theDemoAndBenchDefaultsAreFetched() throws IOException {
    Path root = repositoryRoot();
    Set<String> fetched = fetchedVersions(root.resolve("deploy/etcd-releases.tsv"));
    Pattern defaultVersion =
        Pattern.compile("getOrDefault\\(\"[a-z-]+\", \"(\\d+\\.\\d+\\.\\d+)\"\\)");
    Set<String> defaults = new TreeSet<>();
    try (Stream<Path> files = Files.walk(root.resolve("tools/src/main/java"))) {
      for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
        Matcher m = defaultVersion.matcher(Files.readString(file));
        while (m.find()) defaults.add(m.group(1));
      }
    }
    assertThat(defaults).as("versions the demo and bench commands default to").isNotEmpty();
    assertThat(fetched).containsAll(defaults);
  }

  @Test
  void everyReleaseBuiltFromTheGoProxyHasAModulePinnedToIt() throws IOException {
    Path root = repositoryRoot();
    Set<String> built = new TreeSet<>();
    for (String line : Files.readAllLines(root.resolve("deploy/etcd-releases.tsv"))) {
      String[] row = line.strip().split("\\s+");
      if (row.length == 2 && !row[0].startsWith("#") && row[1].equals("go")) built.add(row[0]);
    }
    assertThat(built).as("releases after Debian's 3.5.30").contains("3.6.16", "3.7.3");
    for (String version : built) {
      Path module = root.resolve("deploy/etcd-build").resolve(version);
      String goMod = Files.readString(module.resolve("go.mod"));
      for (String required : List.of("server", "etcdctl", "etcdutl")) {
        assertThat(goMod)
            .as("%s/go.mod requires etcd's %s module at v%s", module, required, version)
            .contains("go.etcd.io/etcd/" + required + "/v3 v" + version + "\n");
      }
      assertThat(Files.readString(module.resolve("go.sum")))
          .as("%s/go.sum pins the server module", module)
          .contains("go.etcd.io/etcd/server/v3 v" + version + " h1:");
      for (String main : List.of("etcd", "etcdctl", "etcdutl")) {
        assertThat(module.resolve(main).resolve("main.go")).exists();
      }
    }
  }

  private static Set<String> fetchedVersions(Path file) throws IOException {
    Set<String> versions = new TreeSet<>();
    for (String line : Files.readAllLines(file)) {
      String trimmed = line.strip();
      if (trimmed.isEmpty() || trimmed.startsWith("#")) continue;
      versions.add(trimmed.split("\\s+")[0]);
    }
    return versions;
  }

  private static Path repositoryRoot() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.exists(dir.resolve("deploy/etcd-releases.tsv"))) return dir;
    }
    throw new IllegalStateException(
        "deploy/etcd-releases.tsv not found above " + Path.of("").toAbsolutePath());
  }
}
