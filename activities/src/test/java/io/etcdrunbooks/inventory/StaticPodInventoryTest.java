package io.etcdrunbooks.inventory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class StaticPodInventoryTest {

  @TempDir Path dir;

  private static String inventory(String service, String memberPaths) {
    return """
        releases: {localDir: /releases}
        clusters:
          kube:
            ssh: {user: ops, privateKeyFile: /k, knownHostsFile: /kh}
            service: %s
            backupDir: /backups
            members:
              - {name: cp-1, host: 10.0.0.1, clientUrl: "https://10.0.0.1:2379", peerUrl: "https://10.0.0.1:2380", dataDir: /var/lib/etcd%s}
        """
        .formatted(service, memberPaths);
  }

  @Test
  void aStaticPodClusterNeedsNoInstallOrServiceDirAndGetsKubeadmDefaults() throws Exception {
    Path file =
        Files.writeString(dir.resolve("inventory.yaml"), inventory("{kind: static-pod}", ""));

    ServiceSpec service = InventoryLoader.load(file).cluster("kube").service();

    assertThat(service.kind()).isEqualTo(ServiceSpec.STATIC_POD);
    assertThat(service.effectiveManifestPath()).isEqualTo("/etc/kubernetes/manifests/etcd.yaml");
    assertThat(service.effectiveStashDir()).isEqualTo("/etc/kubernetes/etcd-runbooks-stopped");
    assertThat(service.effectiveImage()).isEqualTo("registry.k8s.io/etcd:{version}-0");
    assertThat(service.effectiveLogCommand()).startsWith("crictl logs --tail {lines}");
  }

  @Test
  void theImageRepositoryIsKubeadmsImageRepositoryAndABadOneIsNamed() throws Exception {
    Path mirror =
        Files.writeString(
            dir.resolve("inventory.yaml"),
            inventory("{kind: static-pod, imageRepository: 'mirror.example:5000/k8s/'}", ""));

    ServiceSpec service = InventoryLoader.load(mirror).cluster("kube").service();

    assertThat(service.effectiveImageRepository()).isEqualTo("mirror.example:5000/k8s");
    assertThat(service.imageOf("3.5.16")).isEqualTo("mirror.example:5000/k8s/etcd:3.5.16-0");
    Path bad =
        Files.writeString(
            dir.resolve("inventory2.yaml"),
            inventory("{kind: static-pod, imageRepository: 'https://mirror/k8s'}", ""));
    assertThatThrownBy(() -> InventoryLoader.load(bad).cluster("kube"))
        .hasMessageContaining(
            "cluster 'kube': service.imageRepository must be a registry host (with an optional"
                + " port) and path");
  }

  @Test
  void anExistingSystemdInventoryStaysValid() throws Exception {
    Path file =
        Files.writeString(
            dir.resolve("inventory.yaml"),
            inventory(
                "{kind: systemd, unit: etcd}", ", installDir: /opt/etcd, serviceDir: /etc/etcd"));

    assertThat(InventoryLoader.load(file).cluster("kube").service())
        .isEqualTo(new ServiceSpec("systemd", "etcd"));
  }

  @Test
  void badStaticPodSettingsAreNamedWithTheirCluster() throws Exception {
    Path file =
        Files.writeString(
            dir.resolve("inventory.yaml"),
            inventory(
                "{kind: static-pod, manifestPath: manifests/etcd.yaml, stashDir: /etc/kubernetes/manifests/, image: 'etcd:latest', logCommand: 'crictl logs'}",
                ""));

    assertThatThrownBy(() -> InventoryLoader.load(file).cluster("kube"))
        .hasMessageContaining("cluster 'kube': service.manifestPath must be an absolute file path")
        .hasMessageContaining("cluster 'kube': service.image must contain {version}")
        .hasMessageContaining("cluster 'kube': service.logCommand must contain {lines}");
    Path inManifests =
        Files.writeString(
            dir.resolve("inventory2.yaml"),
            inventory("{kind: static-pod, stashDir: /etc/kubernetes/manifests/}", ""));
    assertThatThrownBy(() -> InventoryLoader.load(inManifests).cluster("kube"))
        .hasMessageContaining(
            "cluster 'kube': service.stashDir must not be the manifests directory");
    Path plain = Files.writeString(dir.resolve("inventory3.yaml"), inventory("{kind: plain}", ""));
    assertThatThrownBy(() -> InventoryLoader.load(plain).cluster("kube"))
        .hasMessageContaining(
            "cluster 'kube' member 'cp-1': installDir is required with the plain and systemd service managers");
  }
}
