package io.etcdrunbooks.activities.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FlagSettingsTest {

  private static final String ENV =
      "# written by hand\nETCD_NAME=m1\nETCD_LISTEN_CLIENT_URLS=http://10.0.0.1:2379\n\n";

  private static final String MANIFEST =
      """
      spec:
        containers:
        - command:
          - etcd
          - --name=m1
          - "--listen-client-urls=http://10.0.0.1:2379"
          - --data-dir=/var/lib/etcd
          image: registry.k8s.io/etcd:3.5.16-0
      """;

  @Test
  void anEnvironmentFileChangesTheLinesGivenAndAddsTheMissingOnesBeforeItsTrailingBlankLines() {
    Map<String, String> flags = new LinkedHashMap<>();
    flags.put("--listen-client-urls", "http://10.0.0.1:2379,https://10.0.0.1:2379");
    flags.put("--client-cert-auth", "true");
    flags.put("--name", "m1");

    FlagSettings.Edited edited = FlagSettings.envFile(ENV, flags);

    assertThat(edited.text())
        .isEqualTo(
            "# written by hand\nETCD_NAME=m1\n"
                + "ETCD_LISTEN_CLIENT_URLS=http://10.0.0.1:2379,https://10.0.0.1:2379\n"
                + "ETCD_CLIENT_CERT_AUTH=true\n\n");
    assertThat(edited.changes())
        .containsExactly(
            "--listen-client-urls=http://10.0.0.1:2379 ->"
                + " --listen-client-urls=http://10.0.0.1:2379,https://10.0.0.1:2379",
            "(none) -> --client-cert-auth=true");
    assertThat(FlagSettings.envFile(edited.text(), flags).changes())
        .as("set twice: nothing more")
        .isEmpty();
  }

  @Test
  void aManifestChangesTheArgumentsGivenQuotedOrNotAndAddsTheMissingOnesAfterTheLastFlag() {
    Map<String, String> flags = new LinkedHashMap<>();
    flags.put("--listen-client-urls", "https://10.0.0.1:2379");
    flags.put("--cert-file", "/etc/kubernetes/pki/etcd/server.crt");

    FlagSettings.Edited edited = FlagSettings.manifest(MANIFEST, flags);

    assertThat(edited.text())
        .contains("    - --listen-client-urls=https://10.0.0.1:2379\n")
        .contains(
            "    - --data-dir=/var/lib/etcd\n"
                + "    - --cert-file=/etc/kubernetes/pki/etcd/server.crt\n"
                + "    image:")
        .doesNotContain("http://10.0.0.1");
    assertThat(FlagSettings.manifestValue(edited.text(), "--cert-file"))
        .contains("/etc/kubernetes/pki/etcd/server.crt");
    assertThat(FlagSettings.manifestValue(MANIFEST, "--listen-client-urls"))
        .contains("http://10.0.0.1:2379");
    assertThat(FlagSettings.manifest(edited.text(), flags).changes()).isEmpty();
  }

  @Test
  void aManifestWithoutAnyFlagIsRefusedRatherThanGuessedAt() {
    assertThatThrownBy(() -> FlagSettings.manifest("spec: {}\n", Map.of("--cert-file", "/x")))
        .hasMessageContaining("no '- --flag=value' command line");
  }
}
