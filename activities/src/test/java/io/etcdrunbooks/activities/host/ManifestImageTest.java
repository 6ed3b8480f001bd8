package io.etcdrunbooks.activities.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ManifestImageTest {

  private static final String MANIFEST =
      """
      # kept by hand: do not reorder
      apiVersion: v1
      kind: Pod
      metadata:
        name: etcd
        namespace: kube-system
      spec:
        containers:
        - command:
          - etcd
          - --name=cp-1
          image: "registry.k8s.io/etcd:3.4.23-0"   # pinned
          name: etcd
        - name: sidecar
          image: busybox:1.36
      """;

  @Test
  void readsTheVersionOfTheEtcdContainersImage() {
    assertThat(ManifestImage.imageOf(MANIFEST)).isEqualTo("registry.k8s.io/etcd:3.4.23-0");
    assertThat(ManifestImage.commandOf(MANIFEST)).containsExactly("etcd", "--name=cp-1");
    assertThat(ManifestImage.versionOf("registry.k8s.io/etcd:3.5.16-0")).contains("3.5.16");
    assertThat(ManifestImage.versionOf("quay.io/coreos/etcd:v3.5.30")).contains("3.5.30");
    assertThat(ManifestImage.versionOf("localhost:5000/etcd")).isEmpty();
  }

  @Test
  void changesOnlyTheImageValueKeepingQuotesCommentsAndOrder() {
    String changed = ManifestImage.withImage(MANIFEST, "registry.k8s.io/etcd:3.5.16-0");

    assertThat(changed)
        .isEqualTo(
            MANIFEST.replace(
                "\"registry.k8s.io/etcd:3.4.23-0\"", "\"registry.k8s.io/etcd:3.5.16-0\""));
    assertThat(ManifestImage.withImage(changed, "registry.k8s.io/etcd:3.5.16-0")).isSameAs(changed);
  }

  @Test
  void refusesAManifestWhoseImageLineIsAmbiguous() {
    String twice = MANIFEST.replace("busybox:1.36", "\"registry.k8s.io/etcd:3.4.23-0\"");

    assertThatThrownBy(() -> ManifestImage.withImage(twice, "registry.k8s.io/etcd:3.5.16-0"))
        .hasMessageContaining("more than one");
  }
}
