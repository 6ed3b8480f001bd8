package io.etcdrunbooks.activities.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.temporal.failure.ApplicationFailure;
import org.junit.jupiter.api.Test;

/** Renamed flags translated in the files they live in, every other byte kept. */
class FlagEditsTest {

  private static final String MANIFEST =
      """
      spec:
        containers:
        - command:
          - etcd
          - --name=m2
          - --debug
          - --log-output=stderr
          - --trusted-ca-file=/pki/ca.crt
          image: registry.k8s.io/etcd:3.4.23-0 # pinned
      """;

  @Test
  void aManifestGoingTo35GetsTheNewNamesAndNothingElseMoves() {
    FlagEdits.Edited edited = FlagEdits.manifest(MANIFEST, "3.5.30", "m1's manifest");

    assertThat(edited.changes())
        .containsExactly(
            "--debug -> --log-level=debug", "--log-output=stderr -> --log-outputs=stderr");
    assertThat(edited.text())
        .isEqualTo(
            MANIFEST
                .replace("    - --debug\n", "    - --log-level=debug\n")
                .replace("--log-output=stderr", "--log-outputs=stderr"));
  }

  @Test
  void aManifestGoingTo34OrTheSameMinorIsLeftAsItIs() {
    assertThat(FlagEdits.manifest(MANIFEST, "3.4.23", "m1's manifest").changes()).isEmpty();
    assertThat(FlagEdits.manifest(MANIFEST, "3.4.23", "m1's manifest").text()).isEqualTo(MANIFEST);
  }

  @Test
  void anEnvironmentFileGoingBackTo33GetsTheOldNames() {
    String env = "ETCD_NAME=m1\nETCD_LOG_LEVEL=debug\nETCD_LOG_OUTPUTS=stderr\n";

    FlagEdits.Edited edited = FlagEdits.envFile(env, "3.3.25", "m1's etcd.env");

    assertThat(edited.text()).isEqualTo("ETCD_NAME=m1\nETCD_DEBUG=true\nETCD_LOG_OUTPUT=stderr\n");
    assertThat(edited.changes()).hasSize(2);
  }

  @Test
  void aDebugSwitchedOffAndAFlagGivenTwiceAreRemovedRatherThanRenamed() {
    String env = "ETCD_DEBUG=false\nETCD_LOG_OUTPUT=stderr\nETCD_LOG_OUTPUTS=stdout\n";

    FlagEdits.Edited edited = FlagEdits.envFile(env, "3.5.30", "m1's etcd.env");

    assertThat(edited.text()).isEqualTo("ETCD_LOG_OUTPUTS=stdout\n");
    assertThat(edited.changes())
        .containsExactly("--debug=false -> (removed)", "--log-output=stderr -> (removed)");
  }

  private static final String KUBEADM_133 =
      """
      spec:
        containers:
        - command:
          - etcd
          - --name=m1
          - --experimental-initial-corrupt-check=true
          - --experimental-watch-progress-notify-interval=5s
          - --snapshot-count=10000
          image: registry.k8s.io/etcd:3.5.35-0
      """;

  @Test
  void aKubeadm133ManifestGoingTo36GetsAFeatureGateAndTheNewNameAndBackAgain() {
    FlagEdits.Edited up = FlagEdits.manifest(KUBEADM_133, "3.6.16", "m1's manifest");

    assertThat(up.text())
        .isEqualTo(
            KUBEADM_133
                .replace(
                    "--experimental-initial-corrupt-check=true",
                    "--feature-gates=InitialCorruptCheck=true")
                .replace(
                    "--experimental-watch-progress-notify-interval",
                    "--watch-progress-notify-interval"));
    assertThat(FlagEdits.manifest(up.text(), "3.7.3", "m1's manifest").changes()).isEmpty();
    assertThat(FlagEdits.manifest(up.text(), "3.5.35", "m1's manifest").text())
        .isEqualTo(KUBEADM_133);
  }

  @Test
  void aFeatureGateThatCannotGoBackFailsNamingWhereTheFlagsLive() {
    String env = "ETCD_NAME=m1\nETCD_FEATURE_GATES=InitialCorruptCheck=true,NoSuchGate=true\n";

    assertThatThrownBy(() -> FlagEdits.envFile(env, "3.5.35", "m1's etcd.env"))
        .isInstanceOf(ApplicationFailure.class)
        .hasMessageContaining("m1's etcd.env")
        .hasMessageContaining("NoSuchGate");
  }
}
