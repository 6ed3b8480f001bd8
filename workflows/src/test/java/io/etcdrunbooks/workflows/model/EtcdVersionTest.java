package io.etcdrunbooks.workflows.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class EtcdVersionTest {

  @Test
  void parsesOrdersAndNamesTheMinor() {
    EtcdVersion v = EtcdVersion.parse("3.5.30");
    assertThat(v).isEqualTo(new EtcdVersion(3, 5, 30));
    assertThat(v.minorLabel()).isEqualTo("3.5");
    assertThat(v.toString()).isEqualTo("3.5.30");
    assertThat(
            List.of("3.5.30", "3.4.23", "3.5.9", "3.10.0").stream()
                .sorted(EtcdVersion.STRING_ORDER)
                .toList())
        .containsExactly("3.4.23", "3.5.9", "3.5.30", "3.10.0");
    assertThat(EtcdVersion.parse("3.5.16").sameMinor(v)).isTrue();
    assertThat(EtcdVersion.parse("3.5.0").minorAbove(EtcdVersion.parse("3.4.23"))).isTrue();
    assertThat(EtcdVersion.parse("3.4.99").minorAbove(EtcdVersion.parse("3.4.0"))).isFalse();
    assertThat(EtcdVersion.parse("3.4.23").isBefore(v)).isTrue();
  }

  @Test
  void refusesWhatIsNotAVersionNamingTheField() {
    for (String bad :
        new String[] {
          null, "", "3.5", "v3.5.30", "3.5.30-rc.0", "3.5.30 ", "latest", "3.5.x", "99999.0.0"
        }) {
      assertThat(EtcdVersion.isVersion(bad)).as(bad).isFalse();
      assertThatThrownBy(() -> EtcdVersion.parse("targetVersion", bad))
          .hasMessage("targetVersion must look like 3.5.30, got '" + bad + "'");
    }
    assertThat(EtcdVersion.find("")).isEmpty();
    assertThat(EtcdVersion.find("3.4.0")).contains(new EtcdVersion(3, 4, 0));
  }

  @Test
  void knowsEtcdsRulesBetweenReleases() {
    assertThat(EtcdVersion.parse("3.3.25").supportsLearners()).isFalse();
    assertThat(EtcdVersion.parse("3.4.0").supportsLearners()).isTrue();
    assertThat(EtcdVersion.parse("3.4.23").shipsEtcdutl()).isFalse();
    assertThat(EtcdVersion.parse("3.5.0").shipsEtcdutl()).isTrue();
    assertThat(EtcdVersion.parse("3.5.9").restoresWithRevisionBump()).isFalse();
    assertThat(EtcdVersion.parse("3.5.10").restoresWithRevisionBump()).isTrue();
  }

  @Test
  void readsTheVersionOfAnImageTag() {
    assertThat(EtcdVersion.ofImageTag("3.5.16-0")).contains(new EtcdVersion(3, 5, 16));
    assertThat(EtcdVersion.ofImageTag("v3.5.16")).contains(new EtcdVersion(3, 5, 16));
    assertThat(EtcdVersion.ofImageTag("3.5.16+build.1")).contains(new EtcdVersion(3, 5, 16));
    assertThat(EtcdVersion.ofImageTag("latest")).isEmpty();
    assertThat(EtcdVersion.ofImageTag("3.5")).isEmpty();
  }
}
