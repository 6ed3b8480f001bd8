package io.etcdrunbooks.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * One naming convention for tests in every module: a class ends in {@code Test}; a test method is a
 * camel-case sentence of what holds ({@code aMemberDownIsNamedBeforeAnythingStops}), with an
 * underscore only between the digits of a version ({@code upgradesFrom3_4To3_5}).
 */
class TestNamesTest {

  private static final Pattern TEST_METHOD =
      Pattern.compile(
          "@(?:Test|ParameterizedTest|TestFactory|RepeatedTest)\\b[^\\n]*\\n(?:\\s*@[^\\n]*\\n)*"
              + "\\s*(?:public\\s+|static\\s+)*[\\w<>\\[\\], ?]+\\s+(\\w+)\\(");
  private static final Pattern UNDERSCORE_OUTSIDE_A_VERSION = Pattern.compile("(?<!\\d)_|_(?!\\d)");

  @Test
  void everyTestMethodIsACamelCaseSentenceAndEveryTestClassEndsInTest() throws IOException {
    List<String> wrong = new ArrayList<>();
    int methods = 0;
    for (Path file : testSources()) {
      String source = Files.readString(file);
      Matcher m = TEST_METHOD.matcher(source);
      boolean hasTests = false;
      while (m.find()) {
        hasTests = true;
        methods++;
        String name = m.group(1);
        if (UNDERSCORE_OUTSIDE_A_VERSION.matcher(name).find()
            || !Character.isLowerCase(name.charAt(0))) wrong.add(file.getFileName() + ": " + name);
      }
      String className = file.getFileName().toString().replace(".java", "");
      if (hasTests && !className.endsWith("Test") && !className.endsWith("Contract"))
        wrong.add(file.getFileName() + ": a class with tests whose name does not end in Test");
    }
    assertThat(methods).as("test methods found").isGreaterThan(400);
    assertThat(wrong).isEmpty();
  }

  private static List<Path> testSources() throws IOException {
    Path root = Path.of("").toAbsolutePath();
    while (root != null && !Files.exists(root.resolve("deploy/etcd-releases.tsv")))
      root = root.getParent();
    assertThat(root).as("the repository root").isNotNull();
    try (Stream<Path> files = Files.walk(root)) {
      return files
          .filter(f -> f.toString().endsWith(".java"))
          .filter(f -> f.toString().contains("/src/test/java/"))
          .filter(f -> !f.toString().contains("/target/") && !f.toString().contains("/.git/"))
          .toList();
    }
  }
}
