package io.etcdrunbooks.workflows.upgrade;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.workflows.model.EtcdVersion;
import io.etcdrunbooks.workflows.model.MemberFlags;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FlagRulesTest {

  private static EtcdVersion v(String version) {
    return EtcdVersion.parse(version);
  }

  private static List<EtcdVersion> ladder(String... versions) {
    return java.util.Arrays.stream(versions).map(EtcdVersion::parse).toList();
  }

  private static MemberFlags started(String member, String... args) {
    return new MemberFlags(member, List.of(args), Map.of("ETCD_DEBUG", "true"), true);
  }

  @Test
  void aRemovedFlagWithoutATranslationIsNamedAndRenamedOnesAreLeftToTheTranslation() {
    List<String> problems =
        FlagRules.problems(
            v("3.4.23"),
            ladder("3.5.16"),
            List.of(
                started("m1", "--name=m1"),
                started(
                    "m2",
                    "--debug",
                    "--log-output=stderr",
                    "--log-package-levels=etcdserver=INFO")));
    assertThat(problems)
        .containsExactly(
            "member m2 runs with --log-package-levels, which etcd 3.5 no longer accepts (it would not start) and the runbook cannot translate: use --log-level; change it where the member's flags live (unit, environment file or manifest) and try again");
  }

  @Test
  void onlyMinorsTheLadderEntersCountAndEnvironmentVariablesNever() {
    assertThat(
            FlagRules.problems(
                v("3.4.20"), ladder("3.4.23"), List.of(started("m1", "--log-package-levels=x"))))
        .as("a patch upgrade within 3.4 keeps --log-package-levels")
        .isEmpty();
    assertThat(
            FlagRules.problems(
                v("3.3.25"),
                ladder("3.4.23", "3.5.16"),
                List.of(started("m1", "--ca-file=/ca", "--log-package-levels=x"))))
        .singleElement()
        .asString()
        .contains("--log-package-levels", "etcd 3.5");
  }

  @Test
  void renamedFlagsAreTranslatedForwardForNewerTargetsAndBackForOlderOnes() {
    assertThat(translate("--debug", "3.5.16")).containsExactly("--log-level=debug");
    assertThat(translate("--debug=false", "3.5.16")).isEmpty();
    assertThat(translate("--debug", "3.4.23"))
        .as("3.4 still takes --debug")
        .containsExactly("--debug");
    assertThat(translate("--log-level=debug", "3.3.25"))
        .as("3.3 has no --log-level")
        .containsExactly("--debug=true");
    assertThat(translate("--log-outputs=stderr", "3.3.25")).containsExactly("--log-output=stderr");
    assertThat(translate("--ca-file=/pki/ca", "3.4.23"))
        .containsExactly("--trusted-ca-file=/pki/ca");
    assertThat(translate("--trusted-ca-file=/pki/ca", "3.3.25"))
        .containsExactly("--trusted-ca-file=/pki/ca");
  }

  private static List<String> translate(String flag, String target) {
    FlagTranslations.ForTarget to =
        FlagTranslations.forTarget(List.of(FlagTranslations.Flag.parse(flag)), target);
    assertThat(to.refused()).isEmpty();
    return to.flags().stream().map(FlagTranslations.Flag::asArgument).toList();
  }

  @Test
  void v2FlagsAreRemovedBy3_6AndExperimentalFlagsWithoutTranslationBy3_7() {
    assertThat(
            FlagRules.problems(
                v("3.5.35"),
                ladder("3.6.16", "3.7.3"),
                List.of(
                    started(
                        "m3",
                        "--enable-v2=false",
                        "--experimental-initial-corrupt-check=true",
                        "--experimental-watch-progress-notify-interval=5s",
                        "--experimental-made-up=1"))))
        .as("the two 3.5 flags are translated where the member's flags live")
        .hasSize(2)
        .anySatisfy(p -> assertThat(p).contains("--enable-v2", "etcd 3.6"))
        .anySatisfy(p -> assertThat(p).contains("--experimental-made-up", "etcd 3.7"));
  }
}
