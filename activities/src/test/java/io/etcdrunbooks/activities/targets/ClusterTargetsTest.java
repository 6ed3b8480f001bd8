package io.etcdrunbooks.activities.targets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.Inventory;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.inventory.ServiceSpec;
import io.etcdrunbooks.inventory.SshSpec;
import io.temporal.failure.ApplicationFailure;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Names resolved the one way every activity resolves them; nothing here reaches a host or etcd. */
class ClusterTargetsTest {

  private final SshConnector ssh = new SshConnector();
  private final AtomicReference<Inventory> inventory =
      new AtomicReference<>(inventoryOf(cluster("prod", ServiceSpec.PLAIN, "m1", "m2")));
  private final ClusterTargets targets = new ClusterTargets(inventory::get, ssh);

  @AfterEach
  void close() {
    ssh.close();
  }

  @Test
  void anUnknownClusterIsRefusedWithoutARetryNamingTheClustersTheInventoryHas() {
    assertThatThrownBy(() -> targets.cluster("staging"))
        .isInstanceOfSatisfying(
            ApplicationFailure.class,
            f -> {
              assertThat(f.getType()).isEqualTo("UnknownCluster");
              assertThat(f.isNonRetryable()).isTrue();
            })
        .hasMessageContaining(
            "unknown cluster 'staging': the inventory has [prod]; add it to the inventory file or"
                + " check the name");
  }

  @Test
  void anUnknownMemberIsRefusedWithoutARetryNamingTheCluster() {
    ClusterSpec prod = targets.cluster("prod");

    assertThat(targets.host(prod, "m2").describe()).startsWith("cluster 'prod' member 'm2' on ");
    assertThatThrownBy(() -> targets.host(prod, "m9"))
        .isInstanceOfSatisfying(
            ApplicationFailure.class,
            f -> {
              assertThat(f.getType()).isEqualTo("UnknownMember");
              assertThat(f.isNonRetryable()).isTrue();
            })
        .hasMessageContaining("cluster 'prod' has no member 'm9'");
  }

  @Test
  void theInventoryIsReadAtEveryLookupSoThatAReloadedOneTakesEffect() {
    assertThat(targets.cluster("prod").members()).hasSize(2);

    inventory.set(inventoryOf(cluster("prod", ServiceSpec.PLAIN, "m1", "m2", "m3")));

    assertThat(targets.cluster("prod").members()).extracting(MemberSpec::name).contains("m3");
  }

  @Test
  void theServiceManagerAndInstallerFollowTheClustersServiceKindWithOneBinaryCache() {
    ClusterSpec plain = targets.cluster("prod");
    ClusterSpec staticPod = cluster("pods", ServiceSpec.STATIC_POD, "m1");

    assertThat(targets.service(plain).getClass().getSimpleName())
        .isEqualTo("PlainProcessServiceManager");
    assertThat(targets.installer(plain)).isSameAs(targets.binaries());
    assertThat(targets.service(staticPod).getClass().getSimpleName())
        .isEqualTo("StaticPodServiceManager");
    assertThat(targets.installer(staticPod).getClass().getSimpleName())
        .isEqualTo("ManifestImageInstaller");
  }

  @Test
  void targetsBuiltForEtcdAloneRefuseToReachAHost() {
    ClusterTargets etcdOnly = ClusterTargets.etcdOnly(inventory::get);
    ClusterSpec prod = etcdOnly.cluster("prod");

    assertThatThrownBy(() -> etcdOnly.service(prod))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("reach etcd only");
    assertThatThrownBy(() -> etcdOnly.shell(prod, "m1", "restoring", "docs"))
        .isInstanceOf(IllegalStateException.class);
  }

  private static Inventory inventoryOf(ClusterSpec cluster) {
    return new Inventory(null, Map.of(cluster.name(), cluster));
  }

  private static ClusterSpec cluster(String name, String kind, String... members) {
    List<MemberSpec> specs =
        java.util.Arrays.stream(members)
            .map(
                m ->
                    new MemberSpec(
                        m,
                        "127.0.0.1",
                        22,
                        "http://127.0.0.1:2379",
                        "http://127.0.0.1:2380",
                        "/var/lib/etcd",
                        "/opt/etcd",
                        "/etc/etcd"))
            .toList();
    return new ClusterSpec(
        name,
        specs,
        new ServiceSpec(kind, null),
        new SshSpec("ops", 22, "/etc/etcd-runbooks/id_ed25519", "/etc/etcd-runbooks/known_hosts"),
        null,
        "/backups",
        List.of(),
        null);
  }
}
