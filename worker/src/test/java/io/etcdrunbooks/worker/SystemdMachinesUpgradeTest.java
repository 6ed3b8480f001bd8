package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.activities.etcd.EtcdActivitiesImpl;
import io.etcdrunbooks.activities.targets.ClusterTargets;
import io.etcdrunbooks.inventory.InventoryLoader;
import io.etcdrunbooks.testkit.Machines;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.upgrade.UpgradeClusterWorkflow;
import io.etcdrunbooks.workflows.upgrade.UpgradeRequest;
import io.etcdrunbooks.workflows.upgrade.UpgradeResult;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowStub;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * UpgradeCluster on hosts that look like production: three systemd-nspawn machines with systemd as
 * PID 1 and OpenSSH, etcd a systemd unit (Type=notify) on each, the worker its own JVM reaching
 * them over SSH with their host keys checked, a writer running.
 */
@RealEtcd
@Timeout(value = 8, unit = TimeUnit.MINUTES)
class SystemdMachinesUpgradeTest {

  private static final String TASK_QUEUE = "etcd-runbooks-machines-test";

  @TempDir Path dir;

  @Test
  void threeSystemdMachinesUpgradeFrom3325To3530WithRenamedFlagsTranslatedAndNoLostWrite()
      throws Exception {
    try (Machines machines =
            Machines.start(
                dir.resolve("machines"),
                "prod-1",
                3,
                "3.3.25",
                SandboxRunbooks.releases(),
                Map.of(
                    "m1", Map.of("ETCD_DEBUG", "true"),
                    "m3", Map.of("ETCD_LOG_OUTPUT", "stderr")));
        WorkerCrashScenario runbooks =
            WorkerCrashScenario.withShippedWorker(dir, machines.inventoryFile(), TASK_QUEUE)) {
      // m2 as kubespray lays it out: the binary in /usr/local/bin, ExecStart set by a drop-in
      machines.rootShell(
          "m2",
          "cp /opt/etcd/current/etcd /usr/local/bin/etcd"
              + " && mkdir -p /etc/systemd/system/etcd.service.d"
              + " && printf '[Service]\\nExecStart=\\nExecStart=/usr/local/bin/etcd\\n'"
              + " > /etc/systemd/system/etcd.service.d/10-local.conf"
              + " && systemctl daemon-reload && systemctl restart etcd");
      try (ClusterProbe probe = new ClusterProbe(machines.cluster())) {
        probe.putMany("/registry/before/k", 300);
      }
      UpgradeClusterWorkflow workflow =
          runbooks.workflow(
              UpgradeClusterWorkflow.class, UpgradeClusterWorkflow.workflowId("prod-1"));
      UpgradeResult result;
      try (AcknowledgedWriter writer = AcknowledgedWriter.start(machines.cluster(), null)) {
        result =
            workflow.upgrade(
                UpgradeRequest.to(
                    "prod-1", "3.5.30", RunbookOptions.defaults().withMemberTimeoutSeconds(90)));
        writer.stopAndCheckEveryAcknowledgedWrite(machines.cluster());
      }

      assertThat(result.memberVersions())
          .isEqualTo(Map.of("m1", "3.5.30", "m2", "3.5.30", "m3", "3.5.30"));
      assertThat(result.clusterVersion()).startsWith("3.5");
      try (ClusterProbe probe = new ClusterProbe(machines.cluster())) {
        assertThat(probe.dump(0).keySet().stream().filter(k -> k.startsWith("/registry/before/")))
            .hasSize(300);
        assertThat(probe.hashKvByMember(0).values().stream().distinct()).hasSize(1);
      }
      // renamed flags translated in each unit's environment file, the file as it was kept
      Path m1Env = machines.hostRoot("m1").resolve("etc/etcd/etcd.env");
      assertThat(Files.readString(m1Env))
          .contains("ETCD_LOG_LEVEL=debug")
          .doesNotContain("ETCD_DEBUG");
      assertThat(Files.readString(machines.hostRoot("m3").resolve("etc/etcd/etcd.env")))
          .contains("ETCD_LOG_OUTPUTS=stderr")
          .doesNotContain("ETCD_LOG_OUTPUT=");
      assertThat(Path.of(m1Env + ".before-flags")).exists();
      assertThat(machines.rootShell("m2", "systemctl show -p ExecStart etcd"))
          .as("m2's ExecStart moved to the selected version by the runbooks' drop-in")
          .contains("path=/opt/etcd/current/etcd");
      assertThat(
              machines
                  .hostRoot("m2")
                  .resolve("etc/systemd/system/etcd.service.d/50-etcd-runbooks.conf"))
          .exists();
      assertThat(machines.hostRoot("m2").resolve("etc/systemd/system/etcd.service"))
          .as("the unit file itself untouched")
          .content()
          .contains("ExecStart=/opt/etcd/current/etcd");
      for (String m : new String[] {"m1", "m2", "m3"}) {
        // the unit still runs /opt/etcd/current/etcd, now the new version's binary
        assertThat(
                Files.readSymbolicLink(machines.hostRoot(m).resolve("opt/etcd/current")).toString())
            .contains("3.5.30");
      }
    }
  }

  /**
   * The 3.6 and 3.7 rungs on systemd units: the v2 store check runs in the restart's transient unit
   * as root, and before 3.7 each member is restarted once with --snapshot-count=1 set in its unit's
   * environment file, which is put back.
   */
  @Test
  void threeSystemdMachinesClimbFrom3_5_35To3_7_3WithTheirUnitsFlagsUnchanged() throws Exception {
    try (Machines machines =
            Machines.start(
                dir.resolve("machines"), "prod-1", 3, "3.5.35", SandboxRunbooks.releases());
        WorkerCrashScenario runbooks =
            WorkerCrashScenario.withShippedWorker(dir, machines.inventoryFile(), TASK_QUEUE)) {
      Map<String, String> envBefore = new java.util.TreeMap<>();
      for (String m : List.of("m1", "m2", "m3"))
        envBefore.put(m, Files.readString(machines.hostRoot(m).resolve("etc/etcd/etcd.env")));
      UpgradeClusterWorkflow workflow =
          runbooks.workflow(
              UpgradeClusterWorkflow.class, UpgradeClusterWorkflow.workflowId("prod-1"));
      UpgradeResult result =
          workflow.upgrade(
              UpgradeRequest.to(
                  "prod-1", "3.7.3", RunbookOptions.defaults().withMemberTimeoutSeconds(90)));

      assertThat(result.plan().steps())
          .extracting(io.etcdrunbooks.workflows.upgrade.LadderStep::label)
          .containsExactly("3.5.35 -> 3.6.16", "3.6.16 -> 3.7.3");
      assertThat(result.memberVersions())
          .isEqualTo(Map.of("m1", "3.7.3", "m2", "3.7.3", "m3", "3.7.3"));
      assertThat(result.clusterVersion()).isEqualTo("3.7.0");
      assertThat(workflow.progress().completed())
          .filteredOn(s -> s.name().contains("raft snapshot past index"))
          .hasSize(3);
      for (String m : List.of("m1", "m2", "m3")) {
        assertThat(Files.readString(machines.hostRoot(m).resolve("etc/etcd/etcd.env")))
            .as(m + "'s environment file as it was")
            .isEqualTo(envBefore.get(m));
        // what the unit's etcd runs with now, read from its process
        assertThat(
                machines.rootShell(
                    m,
                    "tr '\\0' '\\n' < /proc/$(systemctl show -p MainPID --value etcd)/environ"
                        + " | grep -c '^ETCD_SNAPSHOT_COUNT=' || true"))
            .as(m + " runs without the transient --snapshot-count")
            .isEqualToIgnoringWhitespace("0");
        assertThat(
                machines.rootShell(
                    m, "readlink /proc/$(systemctl show -p MainPID --value etcd)/exe"))
            .contains("3.7.3");
      }
    }
  }

  @Test
  void aMachinePoweredOffMidUpgradeHaltsTheRunbookNamingItWithQuorumKept() throws Exception {
    try (Machines machines =
            Machines.start(
                dir.resolve("machines"), "prod-1", 3, "3.4.23", SandboxRunbooks.releases());
        WorkerCrashScenario runbooks =
            WorkerCrashScenario.withShippedWorker(dir, machines.inventoryFile(), TASK_QUEUE)) {
      try (ClusterProbe probe = new ClusterProbe(machines.cluster())) {
        UpgradeClusterWorkflow workflow =
            runbooks.workflow(
                UpgradeClusterWorkflow.class, UpgradeClusterWorkflow.workflowId("prod-1"));
        WorkflowClient.start(
            workflow::upgrade,
            UpgradeRequest.to(
                "prod-1", "3.5.30", RunbookOptions.defaults().withMemberTimeoutSeconds(90)));
        workflow.pause("test");
        runbooks.awaitProgress(
            workflow::progress,
            p -> p.paused() && p.phase() == Phase.UPGRADE,
            "paused before its first member");

        // followers first in inventory order, the leader last: the second follower's machine dies
        String leader =
            new EtcdActivitiesImpl(
                    ClusterTargets.etcdOnly(() -> InventoryLoader.load(machines.inventoryFile())))
                .discover(new ClusterRef("prod-1"))
                .leaderName();
        List<String> followers =
            List.of("m1", "m2", "m3").stream().filter(n -> !n.equals(leader)).toList();
        String lost = followers.get(1);
        machines.powerOff(lost);
        workflow.resume("test");

        assertThatThrownBy(
                () -> WorkflowStub.fromTyped(workflow).getResult(3, TimeUnit.MINUTES, Object.class))
            .isInstanceOf(WorkflowFailedException.class)
            .satisfies(
                e ->
                    assertThat(Failures.rootMessage(e))
                        .contains("halted before touching " + followers.get(0), lost));
        probe.put("/registry/after/power-off", "quorum kept");
        assertThat(probe.dump(0)).containsKey("/registry/after/power-off");
        for (String m : List.of(followers.get(0), leader)) {
          assertThat(
                  Files.readSymbolicLink(machines.hostRoot(m).resolve("opt/etcd/current"))
                      .toString())
              .as("%s untouched", m)
              .contains("3.4.23");
        }
      }
    }
  }
}
