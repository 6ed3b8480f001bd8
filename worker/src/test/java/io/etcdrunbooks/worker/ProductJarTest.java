package io.etcdrunbooks.worker;

import static java.util.stream.Collectors.toSet;
import static org.assertj.core.api.Assertions.assertThat;

import io.temporal.testserver.TestServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What ships is the product: the jar {@code mvn package} makes (target/etcd-runbooks.jar and the
 * libraries in target/lib it names) holds no class of the test kit, the demo or the bench, and no
 * Temporal test server; those are the tools' (tools/target/etcd-runbooks-tools.jar). Runs after the
 * package phase (tag {@code product-jar}, surefire's {@code product-jar} execution).
 */
@Tag("product-jar")
class ProductJarTest {

  /**
   * Class-file path prefixes that must not ship. (Temporal's serviceclient, which the SDK needs,
   * has a few classes under io/temporal/internal/testservice/ itself: the test server's are told by
   * its own jar's entries.)
   */
  private static final List<String> FORBIDDEN_CLASSES =
      List.of("io/etcdrunbooks/testkit/", "io/etcdrunbooks/tools/", "io/temporal/testing/");

  /** The demo and bench classes, as they were named when the worker held them. */
  private static final List<String> FORBIDDEN_WORKER_CLASSES =
      List.of(
          "Demo",
          "Bench",
          "FleetBench",
          "ReplaceBench",
          "BareRollingRestart",
          "HashCheckByHand",
          "WriteProbe",
          "MemberDownWatch",
          "RunTimeline",
          "WorkerKilledMidRestart",
          "WorkerProcess",
          "EmbeddedTemporal");

  /** Library jars that must not ship, by the start of their file name. */
  private static final List<String> FORBIDDEN_LIBRARIES =
      List.of("testkit-", "tools-", "temporal-test-server-", "temporal-testing-", "junit-");

  private static Path target;

  /** Every class of Temporal's test server, from its jar on this test's class path. */
  private static Set<String> testServerClasses;

  @BeforeAll
  static void productBuilt() throws Exception {
    Path testServerJar =
        Path.of(TestServer.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    testServerClasses =
        entries(testServerJar).stream().filter(e -> e.endsWith(".class")).collect(toSet());
    assertThat(testServerClasses)
        .contains("io/temporal/internal/testservice/TestServicesStarter.class");

    target = Path.of(System.getProperty("etcd-runbooks.product-dir", "target"));
    assertThat(target.resolve("etcd-runbooks.jar"))
        .as("the product jar (mvn package builds it before this test runs)")
        .isRegularFile();
  }

  @Test
  void theProductJarHoldsTheCommandAndNoTestKitBenchDemoOrTestServer() throws IOException {
    List<String> entries = entries(target.resolve("etcd-runbooks.jar"));

    assertThat(entries).contains("io/etcdrunbooks/worker/Main.class");
    assertThat(forbidden(entries)).isEmpty();
  }

  @Test
  void noLibraryNextToItIsATestKitOrTestServerOrHoldsTheirClasses() throws IOException {
    List<Path> libraries;
    try (Stream<Path> files = Files.list(target.resolve("lib"))) {
      libraries = files.sorted().toList();
    }
    assertThat(libraries).as("the product's libraries").isNotEmpty();

    List<String> found = new ArrayList<>();
    for (Path library : libraries) {
      String name = library.getFileName().toString();
      if (FORBIDDEN_LIBRARIES.stream().anyMatch(name::startsWith)) found.add(name);
      forbidden(entries(library)).forEach(entry -> found.add(name + "!" + entry));
    }
    assertThat(found).isEmpty();
  }

  private static List<String> forbidden(List<String> entries) {
    return entries.stream()
        .filter(e -> e.endsWith(".class"))
        .filter(
            e ->
                FORBIDDEN_CLASSES.stream().anyMatch(e::startsWith)
                    || testServerClasses.contains(e)
                    || FORBIDDEN_WORKER_CLASSES.stream()
                        .anyMatch(
                            c ->
                                e.equals("io/etcdrunbooks/worker/" + c + ".class")
                                    || e.startsWith("io/etcdrunbooks/worker/" + c + "$")))
        .toList();
  }

  private static List<String> entries(Path jar) throws IOException {
    try (JarFile file = new JarFile(jar.toFile())) {
      return Collections.list(file.entries()).stream().map(e -> e.getName()).toList();
    }
  }
}
