package io.etcdrunbooks.inventory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.activities.inventory.InventoryActivitiesImpl;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.temporal.failure.ApplicationFailure;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A typo in one cluster's entry refuses that cluster with its problems and leaves the others
 * served; only a file that cannot be parsed is refused whole.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class InvalidClusterEntryTest {

  private static final String CLUSTER =
      """
        NAME:
          ssh: {user: ops, privateKeyFile: /k, knownHostsFile: /kh}
          service: {kind: systemd, unit: UNIT}
          backupDir: /backups
          backup: {encrypt: false}
          members:
            - {name: m1, host: 10.0.0.1, clientUrl: "http://10.0.0.1:2379", peerUrl: "http://10.0.0.1:2380", dataDir: DATA_DIR, installDir: /opt/etcd}
      """;

  @TempDir Path dir;

  @Test
  void aUnitWithShellSyntaxAControlCharacterOrAnUnknownFieldRefusesOnlyItsCluster()
      throws Exception {
    Inventory inventory =
        load(
            cluster("good", "etcd.service", "/var/lib/etcd")
                + cluster("shell", "etcd; reboot", "/var/lib/etcd")
                + cluster("control", "etcd.service", "\"/var/lib/etcd\\u0001\"")
                + cluster("typo", "etcd.service", "/var/lib/etcd").replace("host:", "hots:"));

    assertThat(inventory.cluster("good").member("m1").dataDir()).isEqualTo("/var/lib/etcd");
    assertThat(inventory.clusters()).containsOnlyKeys("good");
    assertThat(inventory.invalidClusters()).containsOnlyKeys("shell", "control", "typo");
    assertThatThrownBy(() -> inventory.cluster("shell"))
        .isInstanceOf(InvalidClusterException.class)
        .isInstanceOf(UnknownClusterException.class)
        .hasMessageContaining("cluster 'shell' is refused: its inventory entry is invalid")
        .hasMessageContaining("service.unit must be a systemd unit name")
        .hasMessageContaining("the other clusters are not affected");
    assertThatThrownBy(() -> inventory.cluster("control"))
        .hasMessageContaining(
            "cluster 'control' member 'm1': dataDir must not contain control characters,"
                + " got '/var/lib/etcd\\u0001'");
    assertThatThrownBy(() -> inventory.cluster("typo"))
        .hasMessageContaining("cluster 'typo' is refused")
        .hasMessageContaining("\"hots\"");
    assertThatThrownBy(() -> inventory.cluster("nowhere"))
        .isExactlyInstanceOf(UnknownClusterException.class);
  }

  @Test
  void aKubernetesSectionNeedsAnAbsoluteKubeconfigAndAThresholdThatIsNotNegative()
      throws Exception {
    String section = "    backupDir: /backups\n";
    Inventory inventory =
        load(
            cluster("good", "etcd.service", "/a")
                    .replace(
                        section,
                        section
                            + "    kubernetes: {kubeconfig: /etc/k/good.conf, maxNotReadyNodes: 2}\n")
                + cluster("relative", "etcd.service", "/b")
                    .replace(section, section + "    kubernetes: {kubeconfig: k/admin.conf}\n")
                + cluster("negative", "etcd.service", "/c")
                    .replace(
                        section,
                        section + "    kubernetes: {kubeconfig: /k.conf, maxNotReadyNodes: -1}\n"));

    assertThat(inventory.cluster("good").kubernetes())
        .isEqualTo(new KubernetesSpec("/etc/k/good.conf", 2));
    assertThatThrownBy(() -> inventory.cluster("relative"))
        .hasMessageContaining(
            "cluster 'relative': kubernetes.kubeconfig must be the absolute path of a kubeconfig"
                + " file on the worker's host, got 'k/admin.conf'");
    assertThatThrownBy(() -> inventory.cluster("negative"))
        .hasMessageContaining("kubernetes.maxNotReadyNodes must not be negative, got -1");
  }

  @Test
  void aRunbookOfTheInvalidClusterFailsWithTheReasonAndNotRetriedWhileTheOthersRun()
      throws Exception {
    InventoryActivitiesImpl activities =
        new InventoryActivitiesImpl(
            new InventorySource(
                write(cluster("good", "etcd.service", "/a") + cluster("shell", "a b", "/b"))));

    assertThat(activities.members(new ClusterRef("good"))).hasSize(1);
    assertThatThrownBy(() -> activities.members(new ClusterRef("shell")))
        .isInstanceOfSatisfying(
            ApplicationFailure.class,
            f -> {
              assertThat(f.getType()).isEqualTo("UnknownCluster");
              assertThat(f.isNonRetryable()).isTrue();
            })
        .hasMessageContaining("cluster 'shell' is refused")
        .hasMessageContaining("service.unit must be a systemd unit name")
        .hasMessageContaining("got 'a b'");
  }

  @Test
  void aChangeWrittenBackKeepsTheInvalidEntryAsItWas() throws Exception {
    Path file = write(cluster("good", "etcd.service", "/a") + cluster("shell", "a b", "/b"));
    Inventory inventory = InventoryLoader.load(file);
    Map<String, ClusterSpec> clusters = new LinkedHashMap<>(inventory.clusters());
    clusters.put(
        "good", inventory.cluster("good").withMembers(inventory.cluster("good").members()));

    InventoryLoader.write(inventory.withClusters(clusters), file);

    Inventory again = InventoryLoader.load(file);
    assertThat(again.cluster("good")).isEqualTo(inventory.cluster("good"));
    assertThat(again.invalidClusters().get("shell").entry().at("/service/unit").asText())
        .isEqualTo("a b");
  }

  @Test
  void aFileThatCannotBeParsedOrWithoutReleasesIsRefusedWhole() throws Exception {
    assertThatThrownBy(() -> load(cluster("good", "etcd.service", "/a") + "  : [\n"))
        .hasMessageContaining("cannot read inventory");
    Path noReleases =
        Files.writeString(
            dir.resolve("no-releases.yaml"), "clusters:\n" + cluster("good", "etcd.service", "/a"));
    assertThatThrownBy(() -> InventoryLoader.load(noReleases))
        .hasMessageContaining("is invalid")
        .hasMessageContaining("releases: set localDir or urlTemplate");
  }

  private static String cluster(String name, String unit, String dataDir) {
    return CLUSTER
        .replace("NAME", name)
        .replace("UNIT", "'" + unit + "'")
        .replace("DATA_DIR", dataDir);
  }

  private Inventory load(String clusters) throws Exception {
    return InventoryLoader.load(write(clusters));
  }

  private Path write(String clusters) throws Exception {
    return Files.writeString(
        dir.resolve("inventory-" + System.nanoTime() + ".yaml"),
        "releases: {localDir: /opt/releases}\nclusters:\n" + clusters);
  }
}
