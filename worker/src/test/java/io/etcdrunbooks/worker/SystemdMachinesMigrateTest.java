package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.testkit.Machines;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.migrate.MigrateRequest;
import io.etcdrunbooks.workflows.migrate.MigrateResult;
import io.etcdrunbooks.workflows.migrate.MigrateV2ToV3Workflow;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * MigrateV2ToV3 on systemd machines reached as the runbooks' non-root user: each data dir (root's)
 * copied and migrated offline with the member's own etcdctl through sudo, the units stopped and
 * started, every v2 key in v3 afterwards.
 */
@RealEtcd
@Timeout(value = 8, unit = TimeUnit.MINUTES)
class SystemdMachinesMigrateTest {

  private static final String TASK_QUEUE = "etcd-runbooks-machines-migrate-test";

  @TempDir Path dir;

  @Test
  void aV2ClusterOnSystemdMachinesIsMigratedWithEveryKeyInV3() throws Exception {
    try (Machines machines =
            Machines.start(
                dir.resolve("machines"), "prod-1", 3, "3.3.25", SandboxRunbooks.releases());
        WorkerCrashScenario runbooks =
            WorkerCrashScenario.withShippedWorker(dir, machines.inventoryFile(), TASK_QUEUE);
        ClusterProbe probe = new ClusterProbe(machines.cluster())) {
      Map<String, String> written =
          new V2Writer(machines.cluster().member("m1").clientUrl()).kubernetes15(300, 50, 3600);

      MigrateResult result =
          runbooks
              .workflow(MigrateV2ToV3Workflow.class, MigrateV2ToV3Workflow.workflowId("prod-1"))
              .migrate(
                  MigrateRequest.of(
                      "prod-1", RunbookOptions.defaults().withMemberTimeoutSeconds(90)));

      assertThat(result.v2Keys()).isEqualTo(350);
      assertThat(result.v3KeysAfter()).isEqualTo(350);
      assertThat(result.leases().keysLeased()).isEqualTo(50);
      for (String member : List.of("m1", "m2", "m3")) {
        String copy = result.dataDirCopies().get(member);
        assertThat(machines.hostRoot(member).resolve(copy.substring(1)).resolve("member/wal"))
            .isDirectory();
      }
      ClusterAssertions.assertEveryKeyInV3(probe, written);
      assertThat(probe.hashKvByMember(0).values().stream().distinct()).hasSize(1);
    }
  }
}
