package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.etcdrunbooks.activities.host.ManifestImage;
import io.etcdrunbooks.inventory.ServiceSpec;
import io.etcdrunbooks.testkit.ImageRegistryStandIn;
import io.etcdrunbooks.testkit.KubernetesApiStandIn;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.testkit.Sandbox;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.upgrade.LadderStep;
import io.etcdrunbooks.workflows.upgrade.UpgradeResult;
import io.temporal.client.WorkflowFailedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real UpgradeCluster workflow on members run as kubelet static pods (kubeadm's layout, kubelet
 * stand-ins), their images in an image registry stand-in that the nodes' crictl stand-ins pull
 * from.
 */
@RealEtcd
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class StaticPodUpgradeTest {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  @TempDir Path dir;

  @Test
  void upgradesThreeStaticPodMembersFrom3_4_23To3_5_16ByChangingTheirManifestsImageKeepingEveryKey()
      throws Exception {
    try (SandboxRunbooks runbooks =
            SandboxRunbooks.start(dir, "3.4.23", Map.of(), ServiceSpec.STATIC_POD);
        ClusterProbe probe = new ClusterProbe(runbooks.sandbox.cluster());
        KubernetesApiStandIn kubernetes =
            KubernetesApiStandIn.start(
                dir.resolve("kubernetes"),
                kubeadmConfig(runbooks.sandbox.registry().repository(), "3.4.23-0"))) {
      Sandbox sandbox = runbooks.sandbox;
      ImageRegistryStandIn registry = sandbox.registry();
      kubernetes.attachTo(sandbox, 0);
      String kubeadmConfigBefore = kubernetes.clusterConfiguration();
      Map<String, Long> pids = pids(sandbox);
      probe.putMany("/registry/pods/default/pod-", 200);
      probe.put("/registry/configmaps/overwritten", "first");
      probe.put("/registry/configmaps/overwritten", "second");
      long revisionBefore = probe.revision();
      var keysBefore = probe.dump(revisionBefore);

      // the mirror lacks the target's tag: refused before anything is touched
      registry.remove("3.5.16-0");
      assertThatThrownBy(() -> runbooks.upgradeStub().upgrade(runbooks.request("3.5.16")))
          .isInstanceOf(WorkflowFailedException.class)
          .satisfies(
              e -> {
                assertThat(Failures.rootType(e)).isEqualTo(FailureType.PreflightRefused.name());
                assertThat(Failures.rootMessage(e))
                    .contains(registry.repository() + "/etcd", "no tag 3.5.16-0");
              });
      registry.serve("3.5.16-0");
      assertThat(sandbox.events()).noneMatch(e -> e.startsWith("stop ") || e.contains("3.5.16"));

      // one node cannot pull it: the STAGE phase's pull fails, naming the node, before any stop
      registry.cutOff(sandbox.hostRoot("m2"));
      assertThatThrownBy(() -> runbooks.upgradeStub().upgrade(runbooks.request("3.5.16")))
          .isInstanceOf(WorkflowFailedException.class)
          .satisfies(
              e -> {
                assertThat(Failures.rootType(e)).isEqualTo(FailureType.ImagePullFailed.name());
                assertThat(Failures.rootMessage(e))
                    .contains(
                        "the node of cluster 'sandbox' member 'm2'",
                        registry.image("3.5.16-0"),
                        "i/o timeout");
              });
      registry.reconnect(sandbox.hostRoot("m2"));
      assertThat(sandbox.events()).noneMatch(e -> e.startsWith("stop "));
      assertThat(pids(sandbox)).isEqualTo(pids);

      UpgradeResult result = runbooks.upgradeStub().upgrade(runbooks.request("3.5.16"));

      // every node pulled the image before the first member stopped
      List<String> events = sandbox.events();
      int firstStop =
          events.indexOf(
              events.stream().filter(e -> e.startsWith("stop ")).findFirst().orElseThrow());
      for (String member : List.of("m1", "m2", "m3")) {
        assertThat(events.subList(0, firstStop))
            .as("events %s", events)
            .contains("pull " + member + " " + registry.image("3.5.16-0"));
      }
      assertThat(events).noneMatch(e -> e.startsWith("kubelet-pull "));
      assertThat(result.plan().steps())
          .extracting(LadderStep::label)
          .containsExactly("3.4.23 -> 3.5.16");
      assertThat(result.memberVersions())
          .containsOnly(
              Map.entry("m1", "3.5.16"), Map.entry("m2", "3.5.16"), Map.entry("m3", "3.5.16"));
      assertThat(probe.versions())
          .containsOnlyKeys("m1", "m2", "m3")
          .allSatisfy((m, v) -> assertThat(v).isEqualTo("3.5.16"));
      assertThat(probe.clusterVersion()).isEqualTo("3.5.0");
      assertThat(probe.dump(revisionBefore)).isEqualTo(keysBefore);
      assertThat(result.keyspaceAfter()).isEqualTo(result.keyspaceBefore());
      assertThat(result.restartedMembers().values())
          .allSatisfy(members -> assertThat(members).containsExactlyInAnyOrder("m1", "m2", "m3"));
      // kubeadm-config names the image the members run, so that kubeadm join --control-plane
      // starts the same and kubeadm upgrade does not take it back; the rest of it as it was
      assertThat(YAML.readTree(kubernetes.clusterConfiguration()))
          .isEqualTo(
              YAML.readTree(
                  kubeadmConfigBefore.replace("imageTag: 3.4.23-0", "imageTag: 3.5.16-0")));
      assertThat(result.notes())
          .anyMatch(
              n ->
                  n.contains(
                      "etcd image "
                          + registry.image("3.4.23-0")
                          + " -> "
                          + registry.image("3.5.16-0")));
      for (String member : new String[] {"m1", "m2", "m3"}) {
        Path manifest = sandbox.manifestPath(member);
        assertThat(ManifestImage.imageOf(Files.readString(manifest)))
            .isEqualTo(registry.image("3.5.16-0"));
        assertThat(sandbox.stashDir(member).resolve("etcd.yaml")).doesNotExist();
        assertThat(Files.readString(sandbox.stashDir(member).resolve("etcd.yaml.previous")))
            .isEqualTo(Files.readString(manifest).replace("etcd:3.5.16-0", "etcd:3.4.23-0"));
      }
    }
  }

  /** kubeadm-config's ClusterConfiguration as kubeadm writes it, in the order it writes it. */
  private static String kubeadmConfig(String imageRepository, String etcdTag) {
    return """
        apiServer:
          certSANs:
          - 127.0.0.1
        apiVersion: kubeadm.k8s.io/v1beta4
        certificatesDir: /etc/kubernetes/pki
        clusterName: sandbox
        controllerManager: {}
        dns: {}
        etcd:
          local:
            dataDir: /var/lib/etcd
            imageTag: %s
        imageRepository: %s
        kind: ClusterConfiguration
        kubernetesVersion: v1.31.4
        networking:
          dnsDomain: cluster.local
          serviceSubnet: 10.96.0.0/12
        proxy: {}
        scheduler: {}
        """
        .formatted(etcdTag, imageRepository);
  }

  private static Map<String, Long> pids(Sandbox sandbox) {
    return Map.of("m1", sandbox.pidOf("m1"), "m2", sandbox.pidOf("m2"), "m3", sandbox.pidOf("m3"));
  }
}
