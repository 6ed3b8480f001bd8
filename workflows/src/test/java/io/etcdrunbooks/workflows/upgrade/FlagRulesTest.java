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
    assertThat(FlagTranslations.translate("--debug", null, "3.5.16"))
        .contains(new FlagTranslations.Flag("--log-level", "debug"));
    assertThat(FlagTranslations.translate("--debug", "false", "3.5.16"))
        .contains(FlagTranslations.DROPPED);
    assertThat(FlagTranslations.translate("--debug", null, "3.4.23"))
        .as("3.4 still takes --debug")
        .isEmpty();
    assertThat(FlagTranslations.translate("--log-level", "debug", "3.3.25"))
        .as("3.3 has no --log-level")
        .contains(new FlagTranslations.Flag("--debug", "true"));
    assertThat(FlagTranslations.translate("--log-outputs", "stderr", "3.3.25"))
        .contains(new FlagTranslations.Flag("--log-output", "stderr"));
    assertThat(FlagTranslations.translate("--ca-file", "/pki/ca", "3.4.23"))
        .contains(new FlagTranslations.Flag("--trusted-ca-file", "/pki/ca"));
    assertThat(FlagTranslations.translate("--trusted-ca-file", "/pki/ca", "3.3.25")).isEmpty();
  }

  @Test
  void reportedVersions3_6And3_7RemoveV2AndExperimentalFlags() {
    assertThat(
            FlagRules.problems(
                v("3.5.32"),
                ladder("3.6.11", "3.7.0"),
                List.of(
                    started(
                        "m3", "--enable-v2=false", "--experimental-initial-corrupt-check=true"))))
        .hasSize(2)
        .anySatisfy(p -> assertThat(p).contains("--enable-v2", "etcd 3.6"))
        .anySatisfy(
            p -> assertThat(p).contains("--experimental-initial-corrupt-check", "etcd 3.7"));
  }
}
