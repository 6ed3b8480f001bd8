package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.testkit.CommandExit;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The product's command as a user types it, in its own JVM: {@code --help} prints the usage and
 * exits 0 without starting anything (no server, no sandbox), and an option a subcommand does not
 * take is refused with its usage.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class CommandHelpTest {

  @ParameterizedTest(name = "{0} --help")
  @CsvSource({"run, --roles", "decrypt-backup, --key-file"})
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
    assertThat(exit.out()).contains("run [--roles", "decrypt-backup").doesNotContain("demo");
  }

  @Test
  void anOptionTheSubcommandDoesNotTakeIsRefusedWithItsUsage() throws Exception {
    CommandExit exit = run("run", "--rolls=worker");

    assertThat(exit.status()).isEqualTo(2);
    assertThat(exit.err()).contains("run does not take --rolls", "usage: run [--roles");
  }

  @Test
  void theDemoIsTheToolsCommandNotTheProducts() throws Exception {
    CommandExit exit = run("demo", "--help");

    assertThat(exit.status()).isEqualTo(2);
    assertThat(exit.err()).contains("unknown command 'demo'");
  }

  private static CommandExit run(String... args) throws IOException, InterruptedException {
    return CommandExit.run(Main.class, args);
  }
}
