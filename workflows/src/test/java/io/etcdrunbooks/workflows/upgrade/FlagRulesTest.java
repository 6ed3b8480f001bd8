package io.etcdrunbooks.workflows.upgrade;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.workflows.model.MemberFlags;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FlagRulesTest {

  private static MemberFlags started(String member, String... args) {
    return new MemberFlags(member, List.of(args), Map.of("ETCD_DEBUG", "true"), true);
  }

  @Test
  void aFlagTheTargetMinorRemovedIsNamedWithItsReplacement() {
    List<String> problems =
        FlagRules.problems(
            "3.4.23",
            List.of("3.5.16"),
            List.of(started("m1", "--name=m1"), started("m2", "--debug", "--log-output=stderr")));
    assertThat(problems)
        .containsExactly(
            "member m2 runs with --debug, which etcd 3.5 no longer accepts (it would not start): use --log-level=debug; change it where the member's flags live (unit, environment file or manifest) and try again",
            "member m2 runs with --log-output, which etcd 3.5 no longer accepts (it would not start): use --log-outputs; change it where the member's flags live (unit, environment file or manifest) and try again");
  }

  @Test
  void onlyMinorsTheLadderEntersCountAndEnvironmentVariablesNever() {
    assertThat(FlagRules.problems("3.4.20", List.of("3.4.23"), List.of(started("m1", "--debug"))))
        .as("a patch upgrade within 3.4 keeps --debug")
        .isEmpty();
    assertThat(
            FlagRules.problems(
                "3.3.25", List.of("3.4.23", "3.5.16"), List.of(started("m1", "--ca-file=/ca"))))
        .singleElement()
        .asString()
        .contains("--ca-file", "etcd 3.4", "--trusted-ca-file");
  }

  @Test
  void reportedVersions3_6And3_7RemoveV2AndExperimentalFlags() {
    assertThat(
            FlagRules.problems(
                "3.5.32",
                List.of("3.6.11", "3.7.0"),
                List.of(
                    started(
                        "m3", "--enable-v2=false", "--experimental-initial-corrupt-check=true"))))
        .hasSize(2)
        .anySatisfy(p -> assertThat(p).contains("--enable-v2", "etcd 3.6"))
        .anySatisfy(
            p -> assertThat(p).contains("--experimental-initial-corrupt-check", "etcd 3.7"));
  }
}
