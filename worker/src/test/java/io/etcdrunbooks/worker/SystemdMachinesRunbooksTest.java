package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.InventoryLoader;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.testkit.Machines;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.workflows.backup.BackupClusterRequest;
import io.etcdrunbooks.workflows.backup.BackupClusterWorkflow;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.model.BackupRecord;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.replacemember.ReplaceMemberRequest;
import io.etcdrunbooks.workflows.replacemember.ReplaceMemberResult;
import io.etcdrunbooks.workflows.replacemember.ReplaceMemberWorkflow;
import io.etcdrunbooks.workflows.restore.RestoreClusterWorkflow;
import io.etcdrunbooks.workflows.restore.RestoreRequest;
import io.etcdrunbooks.workflows.restore.RestoreResult;
import io.etcdrunbooks.workflows.rollback.RollbackClusterWorkflow;
import io.etcdrunbooks.workflows.rollback.RollbackRequest;
import io.etcdrunbooks.workflows.rollback.RollbackResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * ReplaceMember, RestoreCluster and RollbackCluster on systemd machines (systemd as PID 1, OpenSSH,
 * etcd a Type=notify unit) reached as the runbooks' non-root user, through a worker JVM: a machine
 * destroyed with its disk is replaced on a fresh machine that has no etcd unit yet, the cluster is
 * restored from a backup taken before, then a member switched to 3.5.30 by hand is rolled back.
 */
@RealEtcd
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class SystemdMachinesRunbooksTest {

  private static final String TASK_QUEUE = "etcd-runbooks-machines-runbooks-test";

  @TempDir Path dir;

  @Test
  void aDestroyedMachineIsReplacedTheClusterRestoredAndAMixedClusterRolledBack() throws Exception {
    try (Machines machines =
            Machines.start(
                dir.resolve("machines"), "prod-1", 3, "3.4.23", SandboxRunbooks.releases());
        WorkerCrashScenario runbooks =
            WorkerCrashScenario.withShippedWorker(dir, machines.inventoryFile(), TASK_QUEUE)) {
      Map<String, ClusterProbe.StoredKey> atBackup;
      try (ClusterProbe probe = new ClusterProbe(machines.cluster())) {
        probe.putMany("/registry/pods/p-", 300);
      }
      BackupRecord backup =
          runbooks
              .workflow(BackupClusterWorkflow.class, BackupClusterWorkflow.workflowId("prod-1"))
              .backup(BackupClusterRequest.of("prod-1", "before", RunbookOptions.defaults()));
      try (ClusterProbe probe = new ClusterProbe(machines.cluster())) {
        atBackup = probe.dump(backup.revision());
      }

      machines.destroy("m2");
      String m4 = machines.addMachine("m4", "3.4.23", false);
      ReplaceMemberResult replaced =
          runbooks
              .workflow(ReplaceMemberWorkflow.class, ReplaceMemberWorkflow.workflowId("prod-1"))
              .replace(
                  ReplaceMemberRequest.of(
                      "prod-1",
                      "m2",
                      new MemberPlacement(
                          "m4",
                          m4,
                          22,
                          "http://" + m4 + ":2380",
                          "http://" + m4 + ":2379",
                          "",
                          "",
                          ""),
                      RunbookOptions.defaults().withMemberTimeoutSeconds(90),
                      "test"));

      assertThat(replaced.outcome()).isEqualTo(ReplaceMemberResult.REPLACED);
      assertThat(replaced.members()).containsExactlyInAnyOrder("m1", "m3", "m4");
      ClusterSpec after = InventoryLoader.load(machines.inventoryFile()).cluster("prod-1");
      assertThat(after.members()).extracting(MemberSpec::name).containsExactly("m1", "m4", "m3");
      assertThat(Files.readString(machines.hostRoot("m4").resolve("etc/etcd/etcd.env")))
          .contains("ETCD_NAME=m4")
          .contains("ETCD_INITIAL_CLUSTER_STATE=existing");
      assertThat(machines.hostRoot("m4").resolve("etc/systemd/system/etcd.service"))
          .as("the unit copied from a peer")
          .exists();
      try (ClusterProbe probe = new ClusterProbe(after)) {
        assertThat(probe.dump(backup.revision())).isEqualTo(atBackup);
        assertThat(probe.hashKvByMember(0).values().stream().distinct()).hasSize(1);
        probe.putMany("/registry/events/lost-", 50);
      }

      RestoreResult restored =
          runbooks
              .workflow(RestoreClusterWorkflow.class, RestoreClusterWorkflow.workflowId("prod-1"))
              .restore(
                  RestoreRequest.of(
                          "prod-1",
                          backup.id(),
                          RunbookOptions.defaults().withMemberTimeoutSeconds(90))
                      .acknowledgingDataLoss());

      assertThat(restored.backup().id()).isEqualTo(backup.id());
      try (ClusterProbe probe = new ClusterProbe(after)) {
        assertThat(probe.dump(0)).isEqualTo(atBackup);
        assertThat(probe.hashKvByMember(0)).hasSize(3);
        assertThat(probe.hashKvByMember(0).values().stream().distinct()).hasSize(1);
      }

      // a mixed cluster, as a stopped upgrade leaves one: m3 on 3.5.30 by hand, then rolled back
      upgradeByHand(machines, "m3", "3.5.30");
      try (ClusterProbe probe = new ClusterProbe(after)) {
        assertThat(probe.versions()).containsEntry("m3", "3.5.30").containsEntry("m1", "3.4.23");
        long revision = probe.revision();
        Map<String, ClusterProbe.StoredKey> beforeRollback = probe.dump(revision);
        RollbackResult rolledBack =
            runbooks
                .workflow(
                    RollbackClusterWorkflow.class, RollbackClusterWorkflow.workflowId("prod-1"))
                .rollback(
                    RollbackRequest.to(
                        "prod-1", "", RunbookOptions.defaults().withMemberTimeoutSeconds(90)));
        assertThat(rolledBack.membersToRollBack()).containsExactly("m3");
        assertThat(probe.versions())
            .containsOnly(
                Map.entry("m1", "3.4.23"), Map.entry("m4", "3.4.23"), Map.entry("m3", "3.4.23"));
        assertThat(probe.dump(revision)).isEqualTo(beforeRollback);
        // nothing was written since the restore, whose --mark-compacted made the newest revision
        // the compacted one, where 3.4 refuses a hash: 0 hashes at the newest
        assertThat(probe.hashKvByMember(0).values().stream().distinct()).hasSize(1);
      }
    }
  }

  /** What a stopped upgrade leaves: one member switched to another version, by root. */
  private static void upgradeByHand(Machines machines, String member, String version)
      throws Exception {
    Path target = machines.hostRoot(member).resolve("opt/etcd/versions/" + version);
    Files.createDirectories(target);
    try (var binaries = Files.list(SandboxRunbooks.releases().binDir(version))) {
      for (Path binary : binaries.toList()) {
        Files.copy(binary, target.resolve(binary.getFileName()));
      }
    }
    machines.rootShell(
        member,
        "chown -R runbooks: /opt/etcd && chmod 755 /opt/etcd/versions/%s/*".formatted(version)
            + " && ln -sfn versions/%s /opt/etcd/current.tmp && mv -T /opt/etcd/current.tmp"
                .formatted(version)
            + " /opt/etcd/current && systemctl restart etcd");
  }
}
