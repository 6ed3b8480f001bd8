package io.etcdrunbooks.activities.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.inventory.ControlPlaneHost;
import io.temporal.failure.ApplicationFailure;
import org.junit.jupiter.api.Test;

class EncryptionConfigsTest {

  private static final ControlPlaneHost CP1 =
      new ControlPlaneHost(
          "cp1",
          "10.0.0.1",
          22,
          "/etc/kubernetes/manifests/kube-apiserver.yaml",
          "https://10.0.0.1:6443/readyz",
          "/etc/kubernetes/enc/encryption-config.yaml");

  @Test
  void everyProvidersKeyIsNamedOnceSortedAndNoSecretIsKept() {
    String yaml =
        """
        apiVersion: apiserver.config.k8s.io/v1
        kind: EncryptionConfiguration
        resources:
          - resources: [secrets, configmaps]
            providers:
              - kms:
                  apiVersion: v2
                  name: vault
                  endpoint: unix:///var/run/kms.sock
              - aescbc:
                  keys:
                    - name: key2
                      secret: c2Vjb25kLWtleS0zMi1ieXRlcy1sb25nLWVub3VnaCEh
                    - name: key1
                      secret: Zmlyc3Qta2V5LTMyLWJ5dGVzLWxvbmctZW5vdWdoISE=
              - identity: {}
          - resources: [events]
            providers:
              - identity: {}
        """;

    assertThat(EncryptionConfigs.keyNames(yaml, CP1))
        .containsExactly("aescbc/key1", "aescbc/key2", "identity", "kms/vault")
        .noneMatch(k -> k.contains("c2Vj") || k.contains("Zmlyc3"));
  }

  @Test
  void aFileThatIsNotAnEncryptionConfigurationIsRefusedNamingHostAndPath() {
    assertThatThrownBy(() -> EncryptionConfigs.keyNames("kind: Pod\n", CP1))
        .isInstanceOf(ApplicationFailure.class)
        .hasMessageContaining("cp1: /etc/kubernetes/enc/encryption-config.yaml is not a readable")
        .hasMessageContaining("EncryptionConfiguration");
  }

  @Test
  void aMalformedFileIsRefusedWithoutQuotingItsKeyMaterial() {
    String broken =
        """
        kind: EncryptionConfiguration
        resources:
          - providers:
              - aescbc:
                  keys:
                    - name: key1
                      secret: c2VjcmV0LWtleS1tYXRlcmlhbA== [unclosed: {
        """;

    assertThatThrownBy(() -> EncryptionConfigs.keyNames(broken, CP1))
        .isInstanceOf(ApplicationFailure.class)
        .hasMessageContaining("not valid YAML at line")
        .hasMessageNotContaining("c2VjcmV0")
        .hasMessageNotContaining("tleS1tYXRlcmlh");
  }
}
