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
 * A Kubernetes 1.5-style cluster on real etcd 3.3.25: its data in the v2 store, its kube-apiservers
 * on etcd2. MigrateV2ToV3 moves it to v3 with leases for the events, then UpgradeCluster takes it
 * to 3.5.30, which it refused before (V2DataUpgradeRefusalTest).
 */
@RealEtcd
@Timeout(value = 8, unit = TimeUnit.MINUTES)
class MigrateV2ToV3Test {

  private static final long EVENT_TTL = 3600;

  @TempDir Path dir;

  @Test
  void aV2ClusterIsMigratedWithLeasedEventsAndThenUpgradesTo3530WithEveryKeyIntact()
      throws Exception {
    try (SandboxRunbooks runbooks = SandboxRunbooks.start(dir, "3.3.25", Map.of());
        ControlPlaneStandIns apiServers = ControlPlaneStandIns.attach(runbooks.sandbox, "etcd2");
        ClusterProbe probe = new ClusterProbe(runbooks.cluster())) {
      V2Writer v2 = new V2Writer(runbooks.cluster().member("m1").clientUrl());
      Map<String, String> written = v2.kubernetes15(1000, 200, EVENT_TTL);
      for (String host : apiServers.hosts()) {
        assertThat(HttpProbe.status(apiServers.standIn(host).healthUrl()))
            .as("%s on etcd2 before", host)
            .isEqualTo(200);
      }

      MigrateResult result =
          runbooks
              .migrateStub()
              .migrate(
                  MigrateRequest.of(
                      "sandbox",
                      RunbookOptions.defaults()
                          .withMemberTimeoutSeconds(60)
                          .withApiServerTimeoutSeconds(30)));

      assertThat(result.v2Keys()).isEqualTo(1200);
      assertThat(result.v2KeysWithTtl()).isEqualTo(200);
      assertThat(result.v3KeysAfter()).isEqualTo(1200);
      assertThat(result.leases().keysLeased()).isEqualTo(200);
      assertThat(result.leases().longestTtlSeconds()).isBetween(60L, EVENT_TTL + 60);
      assertThat(result.apiServersSwitched()).containsExactlyElementsOf(apiServers.hosts());
      assertThat(result.v2KeysCleared()).isEqualTo(1200);
      for (String member : List.of("m1", "m2", "m3")) {
        assertThat(Path.of(result.dataDirCopies().get(member)).resolve("member/wal")).isDirectory();
      }
      ClusterAssertions.assertEveryKeyInV3(probe, written);
      assertThat(probe.hashKvByMember(0).values().stream().distinct()).hasSize(1);
      for (String host : apiServers.hosts()) {
        assertThat(Files.readString(apiServers.manifest(host)))
            .contains("- --storage-backend=etcd3")
            .doesNotContain("etcd2");
        assertThat(HttpProbe.status(apiServers.standIn(host).healthUrl()))
            .as("%s on etcd3", host)
            .isEqualTo(200);
      }
      assertThat(v2.status("/registry")).isEqualTo(404);
      Path out = Path.of("target", "recorded-migrate-history.json");
      Files.writeString(
          out,
          runbooks.client().fetchHistory(MigrateV2ToV3Workflow.workflowId("sandbox")).toJson(true));

      UpgradeResult upgraded =
          runbooks
              .upgradeStub()
              .upgrade(
                  UpgradeRequest.to(
                      "sandbox", "3.5.30", RunbookOptions.defaults().withMemberTimeoutSeconds(60)));

      assertThat(upgraded.memberVersions().values()).containsOnly("3.5.30");
      ClusterAssertions.assertEveryKeyInV3(probe, written);
      assertThat(probe.hashKvByMember(0).values().stream().distinct()).hasSize(1);
    }
  }

  @Test
  void anApiServerThatFailsOnEtcd3PutsTheClusterBackOnV2WithItsDataDirsAndApiServers()
      throws Exception {
    try (SandboxRunbooks runbooks = SandboxRunbooks.start(dir, "3.3.25", Map.of());
        ControlPlaneStandIns apiServers = ControlPlaneStandIns.attach(runbooks.sandbox, "etcd2");
        ClusterProbe probe = new ClusterProbe(runbooks.cluster())) {
      V2Writer v2 = new V2Writer(runbooks.cluster().member("m1").clientUrl());
      Map<String, String> written = v2.kubernetes15(200, 20, EVENT_TTL);
      apiServers.standIn("cp-m1").failAfterManifestChange();

      assertThatThrownBy(
              () ->
                  runbooks
                      .migrateStub()
                      .migrate(
                          MigrateRequest.of(
                              "sandbox",
                              RunbookOptions.defaults()
                                  .withMemberTimeoutSeconds(60)
                                  .withApiServerTimeoutSeconds(10))))
          .isInstanceOf(WorkflowFailedException.class)
          .satisfies(
              e -> {
                assertThat(Failures.rootType(e)).isEqualTo(FailureType.MigrationRolledBack.name());
                assertThat(Failures.rootMessage(e))
                    .contains(
                        "stopped in phase APISERVERS",
                        "kube-apiserver on cp-m1",
                        "The cluster is back on v2");
              });

      assertThat(probe.dump(0)).as("v3 as empty as before").isEmpty();
      for (String key : written.keySet()) {
        assertThat(v2.status(key)).as("v2 %s", key).isEqualTo(200);
      }
      runbooks
          .state()
          .members()
          .forEach(
              m -> {
                assertThat(m.healthy()).as("%s: %s", m.name(), m.errors()).isTrue();
                assertThat(m.serverVersion()).isEqualTo("3.3.25");
              });
      for (String host : apiServers.hosts()) {
        assertThat(Files.readString(apiServers.manifest(host)))
            .contains("- --storage-backend=etcd2");
        assertThat(HttpProbe.status(apiServers.standIn(host).healthUrl()))
            .as("%s back on etcd2", host)
            .isEqualTo(200);
      }
      String m1 = runbooks.cluster().member("m1").dataDir();
      try (var beside = Files.list(Path.of(m1).getParent())) {
        assertThat(beside.map(p -> p.getFileName().toString()))
            .anyMatch(n -> n.contains(".before-migrate-"))
            .anyMatch(n -> n.contains(".after-migrate-"));
      }
    }
  }
}
