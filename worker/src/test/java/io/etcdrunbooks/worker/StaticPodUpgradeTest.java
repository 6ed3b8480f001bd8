package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.activities.host.ManifestImage;
import io.etcdrunbooks.inventory.ServiceSpec;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.workflows.upgrade.LadderStep;
import io.etcdrunbooks.workflows.upgrade.UpgradeResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real UpgradeCluster workflow on members run as kubelet static pods (kubeadm's layout, kubelet
 * stand-ins).
 */
@RealEtcd
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class StaticPodUpgradeTest {

  @TempDir Path dir;

  @Test
  void upgradesThreeStaticPodMembersFrom3_4_23To3_5_16ByChangingTheirManifestsImageKeepingEveryKey()
      throws Exception {
    try (SandboxRunbooks runbooks =
            SandboxRunbooks.start(dir, "3.4.23", Map.of(), ServiceSpec.STATIC_POD);
        ClusterProbe probe = new ClusterProbe(runbooks.sandbox.cluster())) {
      probe.putMany("/registry/pods/default/pod-", 200);
      probe.put("/registry/configmaps/overwritten", "first");
      probe.put("/registry/configmaps/overwritten", "second");
      long revisionBefore = probe.revision();
      var keysBefore = probe.dump(revisionBefore);

      UpgradeResult result = runbooks.upgradeStub().upgrade(runbooks.request("3.5.16"));

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
      for (String member : new String[] {"m1", "m2", "m3"}) {
        Path manifest = runbooks.sandbox.manifestPath(member);
        assertThat(ManifestImage.imageOf(Files.readString(manifest)))
            .isEqualTo("registry.k8s.io/etcd:3.5.16-0");
        assertThat(runbooks.sandbox.stashDir(member).resolve("etcd.yaml")).doesNotExist();
        assertThat(
                Files.readString(runbooks.sandbox.stashDir(member).resolve("etcd.yaml.previous")))
            .isEqualTo(Files.readString(manifest).replace("etcd:3.5.16-0", "etcd:3.4.23-0"));
      }
    }
  }
}
