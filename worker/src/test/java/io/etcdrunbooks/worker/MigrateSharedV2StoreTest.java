package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.testkit.ControlPlaneStandIns;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.migrate.MigrateRequest;
import io.etcdrunbooks.workflows.migrate.MigrateResult;
import io.etcdrunbooks.workflows.migrate.MigrateV2ToV3Workflow;
import io.etcdrunbooks.workflows.upgrade.UpgradeRequest;
import io.temporal.client.WorkflowFailedException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A v2-era etcd 3.3.25 shared by Kubernetes (/registry), flannel (/coreos.com/network) and Calico
 * (/calico/v1), which speak v2 only: MigrateV2ToV3 moves Kubernetes' keys and leaves the others in
 * v2 exactly as they were; the upgrade that follows is refused, naming what remains and its owners.
 */
@RealEtcd
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class MigrateSharedV2StoreTest {

  @TempDir Path dir;

  @Test
  void flannelAndCalicoKeysSurviveTheMigrationUntouchedAndTheUpgradeRefusalNamesTheirOwners()
      throws Exception {
    try (SandboxRunbooks runbooks = SandboxRunbooks.start(dir, "3.3.25", Map.of());
        ControlPlaneStandIns apiServers = ControlPlaneStandIns.attach(runbooks.sandbox, "etcd2");
        ClusterProbe probe = new ClusterProbe(runbooks.cluster())) {
      V2Writer v2 = new V2Writer(runbooks.cluster().member("m1").clientUrl());
      Map<String, String> kubernetes = v2.kubernetes15(100, 10, 3600);
      v2.put(
          "/coreos.com/network/config",
          "{\"Network\":\"10.244.0.0/16\",\"Backend\":{\"Type\":\"vxlan\"}}",
          0);
      // flannel's subnet leases carry a TTL of a day
      v2.put(
          "/coreos.com/network/subnets/10.244.1.0-24",
          "{\"PublicIP\":\"10.0.0.11\",\"BackendType\":\"vxlan\",\"BackendData\":"
              + "{\"VtepMAC\":\"a6:2f:10:3c:44:01\"}}",
          86400);
      v2.put("/calico/v1/config/LogSeverityScreen", "info", 0);
      v2.put("/calico/v1/host/node-1/bird_ip", "10.0.0.11", 0);
      v2.put(
          "/calico/v1/policy/tier/default/policy/allow-dns",
          "{\"order\":10,\"inbound_rules\":[{\"action\":\"allow\",\"protocol\":\"udp\"}]}",
          0);
      Map<String, String> notKubernetes = new LinkedHashMap<>();
      for (String key :
          new String[] {
            "/coreos.com/network/config",
            "/coreos.com/network/subnets/10.244.1.0-24",
            "/calico/v1/config/LogSeverityScreen",
            "/calico/v1/host/node-1/bird_ip",
            "/calico/v1/policy/tier/default/policy/allow-dns"
          }) {
        notKubernetes.put(key, v2.node(key));
      }
      RunbookOptions options =
          RunbookOptions.defaults().withMemberTimeoutSeconds(60).withApiServerTimeoutSeconds(30);

      MigrateV2ToV3Workflow dryRun = runbooks.migrateStub();
      MigrateResult planned =
          dryRun.migrate(MigrateRequest.of("sandbox", options.withDryRun(true)));

      assertThat(planned.v2Keys()).isEqualTo(110);
      assertThat(planned.v2Untouched())
          .containsExactly(Map.entry("/calico", 3L), Map.entry("/coreos.com", 2L));
      assertThat(dryRun.progress().message())
          .contains(
              "migrate 110 v2 keys under --etcd-prefix /registry",
              "left untouched in v2 (not Kubernetes'): /calico: 3 keys, likely Calico",
              "/coreos.com: 2 keys, likely flannel");

      MigrateResult result = runbooks.migrateStub().migrate(MigrateRequest.of("sandbox", options));

      assertThat(result.v2Keys()).isEqualTo(110);
      assertThat(result.apiServersSwitched()).containsExactlyElementsOf(apiServers.hosts());
      assertThat(result.v3KeysAfter()).isEqualTo(110);
      assertThat(result.v2KeysCleared()).isEqualTo(110);
      assertThat(result.leases().copiesOutsidePrefixDeleted()).isEqualTo(5);
      for (Map.Entry<String, String> key : notKubernetes.entrySet()) {
        assertThat(v2.node(key.getKey())).as("v2 %s", key.getKey()).isEqualTo(key.getValue());
      }
      assertThat(v2.status("/registry")).isEqualTo(404);
      assertThat(probe.dump(0).keySet())
          .as("v3 holds Kubernetes' keys only: no stale copies of flannel's or Calico's")
          .allMatch(k -> k.startsWith("/registry/"))
          .hasSize(110);
      ClusterAssertions.assertEveryKeyInV3(probe, kubernetes);
      assertThat(probe.hashKvByMember(0).values().stream().distinct()).hasSize(1);

      UpgradeRequest upgrade = UpgradeRequest.to("sandbox", "3.5.30", RunbookOptions.defaults());
      assertThatThrownBy(() -> runbooks.upgradeStub().upgrade(upgrade))
          .isInstanceOf(WorkflowFailedException.class)
          .satisfies(
              e -> {
                assertThat(Failures.rootType(e)).isEqualTo(FailureType.PreflightRefused.name());
                assertThat(Failures.rootMessage(e))
                    .contains(
                        "holds 5 keys in the v2 store (1 with a TTL",
                        "By prefix: /calico: 3 keys, likely Calico",
                        "/coreos.com: 2 keys, likely flannel",
                        "None of it is Kubernetes'");
              });
      runbooks.state().members().forEach(m -> assertThat(m.serverVersion()).isEqualTo("3.3.25"));
    }
  }
}
