package io.etcdrunbooks.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The API reads clusters through the activity interfaces, whose implementations the runtime module
 * provides as beans, and never reaches into the activity implementations, the worker or the test
 * kit. The compiler cannot hold this: the activities jar, which the API needs for the inventory and
 * the secret file rule, also holds the implementations.
 */
class LayersTest {

  /**
   * Names the API's main code may not mention: implementation packages of activities, the worker,
   * the test kit.
   */
  private static final Pattern FORBIDDEN =
      Pattern.compile(
          "io\\.etcdrunbooks\\.(activities|worker|testkit)\\.|\\bnew \\w+ActivitiesImpl\\b|\\bReleaseStores?\\b");

  @Test
  void theApiMentionsNoActivityImplementationNorTheWorkerNorTheTestKit() throws IOException {
    List<String> found;
    try (Stream<Path> files = Files.walk(Path.of("src/main/java"))) {
      found =
          files
              .filter(f -> f.toString().endsWith(".java"))
              .flatMap(
                  f ->
                      lines(f).stream()
                          .filter(line -> FORBIDDEN.matcher(line).find())
                          .map(line -> f + ": " + line.strip()))
              .toList();
    }
    assertThat(found)
        .as(
            "the API's main code (the runtime module's beans give it EtcdActivities and ReleaseActivities)")
        .isEmpty();
  }

  private static List<String> lines(Path file) {
    try {
      return Files.readAllLines(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
