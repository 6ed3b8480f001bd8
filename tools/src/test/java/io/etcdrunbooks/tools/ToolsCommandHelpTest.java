package io.etcdrunbooks.tools;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.testkit.CommandExit;
import java.io.IOException;
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

  @ParameterizedTest(name = "{0} --help")
  @CsvSource({"demo,     --from", "sandbox,  --version", "bench,    --cases", "temporal, --port"})
  void everySubcommandAnswersHelpWithItsUsageAndExitsAtOnce(String command, String option)
      throws Exception {
    CommandExit exit = run(command, "--help");

    assertThat(exit.status()).as(exit.err()).isZero();
    assertThat(exit.out()).contains("usage: " + command).contains(option);
  }

  @Test
  void helpWithoutACommandListsEveryCommand() throws Exception {
    CommandExit exit = run("--help");

    assertThat(exit.status()).as(exit.err()).isZero();
    assertThat(exit.out())
        .contains("usage: etcd-runbooks-tools", "demo", "sandbox --dir", "bench", "temporal");
  }

  @Test
  void anOptionTheSubcommandDoesNotTakeIsRefusedWithItsUsage() throws Exception {
    CommandExit exit = run("temporal", "--prot=7234");

    assertThat(exit.status()).isEqualTo(2);
    assertThat(exit.err()).contains("temporal does not take --prot", "usage: temporal [--port");
  }

  private static CommandExit run(String... args) throws IOException, InterruptedException {
    return CommandExit.run(ToolsMain.class, args);
  }
}
