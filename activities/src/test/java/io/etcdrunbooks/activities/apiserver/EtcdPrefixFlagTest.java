package io.etcdrunbooks.activities.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class EtcdPrefixFlagTest {

  private static final String MANIFEST =
      """
      spec:
        containers:
        - command:
          - kube-apiserver
          - --etcd-servers=http://10.0.0.1:2379
      %s    - --storage-backend=etcd2
      """;

  @Test
  void theFlagsValueIsReadQuotedOrNot() {
    assertThat(EtcdPrefixFlag.read(MANIFEST.formatted("    - --etcd-prefix=/k8s\n"), "cp1"))
        .isEqualTo("/k8s");
    assertThat(EtcdPrefixFlag.read(MANIFEST.formatted("    - \"--etcd-prefix=/k8s\"\n"), "cp1"))
        .isEqualTo("/k8s");
  }

  @Test
  void noFlagReadsEmptyAndTwoFlagsAreRefused() {
    assertThat(EtcdPrefixFlag.read(MANIFEST.formatted(""), "cp1")).isEmpty();
    assertThatThrownBy(
            () ->
                EtcdPrefixFlag.read(
                    MANIFEST.formatted("    - --etcd-prefix=/a\n    - --etcd-prefix=/b\n"), "cp1"))
        .hasMessageContaining("cp1 has 2 '- --etcd-prefix=...' command lines");
  }
}
