package io.etcdrunbooks.activities.host;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class SudoRulesTest {

  @Test
  void theShippedSudoersFileHoldsExactlyTheRulesThePreflightAsksFor() throws Exception {
    Path file = Path.of("..", "deploy", "sudoers", "etcd-runbooks");
    List<String> rules =
        Files.readAllLines(file).stream().filter(l -> !l.isBlank() && !l.startsWith("#")).toList();

    assertThat(rules)
        .containsExactlyElementsOf(
            SudoRules.systemd("etcd").stream().map(r -> r.line("runbooks")).toList());
  }

  @Test
  void aSudoRefusalNamesTheCommandAndTheRuleToAddAndOtherErrorsAreLeftAlone() {
    assertThat(
            SudoRules.refusal(
                "sudo: a password is required\n", "runbooks", SudoRules.stop("etcd-main")))
        .hasValueSatisfying(
            m ->
                assertThat(m)
                    .contains("'/usr/bin/systemctl stop etcd-main'")
                    .contains(
                        "add 'runbooks ALL=(root) NOPASSWD: /usr/bin/systemctl stop etcd-main' to"
                            + " /etc/sudoers.d/etcd-runbooks"));
    assertThat(
            SudoRules.refusal(
                "Failed to stop etcd.service: Unit not loaded.", "r", SudoRules.stop("etcd")))
        .isEmpty();
  }
}
