package io.etcdrunbooks.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The tools' command as a user types it, in its own JVM: {@code --help} prints the usage and exits
 * 0 without starting anything (no server, no sandbox), and an option a subcommand does not take is
 * refused with its usage.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ToolsCommandHelpTest {

  record Exit(int status, String out, String err) {}

  @ParameterizedTest(name = "{0} --help")
  @CsvSource({"demo,     --from", "sandbox,  --version", "bench,    --cases", "temporal, --port"})
  void everySubcommandAnswersHelpWithItsUsageAndExitsAtOnce(String command, String option)
      throws Exception {
    Exit exit = run(command, "--help");

    assertThat(exit.status()).as(exit.err()).isZero();
    assertThat(exit.out()).contains("usage: " + command).contains(option);
  }

  @Test
  void helpWithoutACommandListsEveryCommand() throws Exception {
    Exit exit = run("--help");

    assertThat(exit.status()).as(exit.err()).isZero();
    assertThat(exit.out())
        .contains("usage: etcd-runbooks-tools", "demo", "sandbox --dir", "bench", "temporal");
  }

  @Test
  void anOptionTheSubcommandDoesNotTakeIsRefusedWithItsUsage() throws Exception {
    Exit exit = run("temporal", "--prot=7234");

    assertThat(exit.status()).isEqualTo(2);
    assertThat(exit.err()).contains("temporal does not take --prot", "usage: temporal [--port");
  }

  /** The command's exit, or a failure when it is still running after 20 s (it started a server). */
  private static Exit run(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(ToolsMain.class.getName());
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).start();
    process.getOutputStream().close();
    if (!process.waitFor(20, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
      throw new AssertionError(
          String.join(" ", args)
              + " was still running after 20 s instead of printing its usage: "
              + new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    }
    return new Exit(
        process.exitValue(),
        new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8),
        new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
  }
}
