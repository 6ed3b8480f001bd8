package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.workflows.backup.BackupClusterRequest;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.maintenance.MaintenanceRequest;
import io.etcdrunbooks.workflows.maintenance.MaintenanceResult;
import io.etcdrunbooks.workflows.model.BackupRecord;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.recover.RecoverQuorumRequest;
import io.etcdrunbooks.workflows.recover.RecoverQuorumResult;
import io.etcdrunbooks.workflows.recover.RecoverQuorumWorkflow;
import io.etcdrunbooks.workflows.replacemember.ReplaceMemberRequest;
import io.etcdrunbooks.workflows.replacemember.ReplaceMemberResult;
import io.etcdrunbooks.workflows.restore.RestoreRequest;
import io.etcdrunbooks.workflows.restore.RestoreResult;
import io.etcdrunbooks.workflows.scale.ScaleClusterRequest;
import io.etcdrunbooks.workflows.scale.ScaleClusterResult;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowStub;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runbooks other than upgrade and downgrade on real etcd 3.6 members (no v2 store, snapshot
 * status and restore only in etcdutl, 10,000 as the default snapshot count), one after another on
 * one sandbox to keep it cheap: backup, maintenance out of space, scale out and in, replace a
 * member, restore the first backup, recover quorum. Then backup and restore on 3.7.3, which refuses
 * every --experimental-* flag. (Certificate rotation on 3.6 is a row of ReconfigureTlsTest.)
 */
@RealEtcd
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class Etcd36RunbooksTest {

  private static final String VERSION = "3.6.16";
  private static final long QUOTA = 16L << 20;
  private static final String LARGE_VALUE = "x".repeat(100 * 1024);
  private static final RunbookOptions OPTIONS =
      RunbookOptions.defaults().withMemberTimeoutSeconds(60).withApiServerTimeoutSeconds(30);

  @TempDir static Path dir;
  private SandboxRunbooks runbooks;
  private BackupRecord firstBackup;
  private Map<String, ClusterProbe.StoredKey> atFirstBackup;

  @BeforeAll
  void startThreeMembersWithASmallQuota() {
    Map<String, String> quota = Map.of("ETCD_QUOTA_BACKEND_BYTES", String.valueOf(QUOTA));
    runbooks =
        SandboxRunbooks.start(
            dir.resolve("3.6"), VERSION, Map.of("m1", quota, "m2", quota, "m3", quota));
  }

  @AfterAll
  void stopSandbox() {
    if (runbooks != null) runbooks.close();
  }

  @Test
  @Order(1)
  void backupClusterSnapshotsWithTheMembersOwnToolsAndEtcdutlCountsTheLiveKeys() throws Exception {
    try (ClusterProbe probe = new ClusterProbe(runbooks.cluster())) {
      probe.putMany("/registry/secrets/default/s-", 300);
      probe.put("/registry/configmaps/overwritten", "first");
      probe.put("/registry/configmaps/overwritten", "second");
      long written = probe.revision();

      firstBackup =
          runbooks
              .backupStub()
              .backup(BackupClusterRequest.of("sandbox", "before the 3.6 runbooks", OPTIONS));

      atFirstBackup = probe.dump(firstBackup.revision());
      assertThat(firstBackup.etcdVersion()).isEqualTo(VERSION);
      assertThat(firstBackup.revision()).isGreaterThanOrEqualTo(written);
      assertThat(firstBackup.encrypted()).isTrue();
      // 3.6's etcdutl snapshot status counts the keys alive at the snapshot's revision
      assertThat(firstBackup.liveKeys()).isEqualTo(atFirstBackup.size()).isEqualTo(301);
      assertThat(firstBackup.keyCount()).isEqualTo(firstBackup.liveKeys());
    }
  }

  @Test
  @Order(2)
  void maintenanceOfAClusterOutOfSpaceCompactsDefragmentsAndDisarmsTheAlarm() throws Exception {
    try (ClusterProbe probe = new ClusterProbe(runbooks.cluster())) {
      fillUntilNospace(probe);
      assertThat(runbooks.state().alarms()).anyMatch(a -> a.startsWith("NOSPACE"));
      Map<String, ClusterProbe.StoredKey> live = probe.dump(0);
      String leader = runbooks.state().leaderName();

      MaintenanceResult result =
          runbooks
              .maintenanceStub()
              .maintain(MaintenanceRequest.of("sandbox", OPTIONS).compactingAllBut(0));

      assertThat(result.compactedTo()).isPositive();
      assertThat(result.defragmented()).hasSize(3).endsWith(leader);
      assertThat(result.alarmsDisarmed()).isNotEmpty();
      assertThat(result.after())
          .allSatisfy(
              after -> assertThat(after.sizeBytes()).as(after.member()).isLessThan(QUOTA / 2));
      assertThat(runbooks.state().alarms()).isEmpty();
      probe.put("/registry/after-maintenance", "accepted");
      assertThat(probe.dump(0))
          .containsAllEntriesOf(live)
          .containsKey("/registry/after-maintenance");
      assertThat(probe.hashKvByMember(0).values().stream().distinct()).hasSize(1);
    }
  }

  @Test
  @Order(3)
  void scaleClusterGrowsToFiveThroughLearnersAndShrinksBackToThree() throws Exception {
    Map<String, ClusterProbe.StoredKey> keys = dump();
    MemberPlacement m4 = runbooks.sandbox.addHost("m4", "m4");
    MemberPlacement m5 = runbooks.sandbox.addHost("m5", "m5");

    ScaleClusterResult grown =
        runbooks
            .scaleStub()
            .scale(ScaleClusterRequest.growing("sandbox", 5, List.of(m4, m5), OPTIONS));

    assertThat(grown.outcome()).isEqualTo(ScaleClusterResult.SCALED);
    assertThat(grown.added()).containsExactly("m4", "m5");
    ClusterAssertions.assertHealthyAndIntact(
        runbooks, List.of("m1", "m2", "m3", "m4", "m5"), VERSION, keys);

    String leader = runbooks.state().leaderName();
    ScaleClusterResult shrunk =
        runbooks.scaleStub().scale(ScaleClusterRequest.shrinking("sandbox", 3, OPTIONS));

    assertThat(shrunk.outcome()).isEqualTo(ScaleClusterResult.SCALED);
    assertThat(shrunk.removed()).hasSize(2).doesNotContain(leader);
    ClusterAssertions.assertHealthyAndIntact(runbooks, memberNames(), VERSION, keys);
  }

  @Test
  @Order(4)
  void replaceMemberPutsADestroyedFollowerOnANewHostAsALearner() throws Exception {
    Map<String, ClusterProbe.StoredKey> keys = dump();
    String leader = runbooks.state().leaderName();
    String failed = memberNames().stream().filter(m -> !m.equals(leader)).findFirst().orElseThrow();
    runbooks.destroy(failed);
    // the host named as its member: the recovery below destroys members by their host's name
    MemberPlacement m6 = runbooks.sandbox.addHost("m6", "m6");

    ReplaceMemberResult result =
        runbooks
            .replaceStub(failed)
            .replace(ReplaceMemberRequest.of("sandbox", failed, m6, OPTIONS, "test"));

    assertThat(result.outcome()).isEqualTo(ReplaceMemberResult.REPLACED);
    assertThat(result.joinedAsLearner()).isTrue();
    assertThat(memberNames()).contains("m6").doesNotContain(failed);
    ClusterAssertions.assertHealthyAndIntact(runbooks, memberNames(), VERSION, keys);
  }

  @Test
  @Order(5)
  void restoreClusterBringsBackTheFirstBackupWithEtcdutlAndTheRevisionBumped() throws Exception {
    assertRestoresWithRevisionBump(runbooks, firstBackup, atFirstBackup, VERSION);
  }

  @Test
  @Order(6)
  void recoverQuorumRebuildsTwoDestroyedMembersFromTheSurvivor() throws Exception {
    Map<String, ClusterProbe.StoredKey> keys = dump();
    List<String> members = memberNames();
    String survivor = members.get(0);
    runbooks.destroy(members.get(1));
    runbooks.destroy(members.get(2));

    RecoverQuorumWorkflow workflow = runbooks.recoverStub();
    WorkflowClient.start(
        workflow::recover,
        RecoverQuorumRequest.of("sandbox", OPTIONS).acknowledgingDataLoss().confirmingLossFor(3));
    awaitPhase(workflow, Phase.AWAITING_APPROVAL);
    workflow.approve("test-admin");
    RecoverQuorumResult result =
        WorkflowStub.fromTyped(workflow).getResult(2, TimeUnit.MINUTES, RecoverQuorumResult.class);

    assertThat(result.outcome()).isEqualTo(RecoverQuorumResult.RECOVERED);
    assertThat(result.survivor()).isEqualTo(survivor);
    assertThat(result.rebuilt())
        .containsEntry(members.get(1), members.get(1) + "-r1")
        .containsEntry(members.get(2), members.get(2) + "-r1");
    ClusterAssertions.assertHealthyAndIntact(runbooks, memberNames(), VERSION, keys);
  }

  @Test
  @Order(7)
  void on3_7BackupAndRestoreUseItsEtcdutlAndBumpTheRevision() throws Exception {
    try (SandboxRunbooks on37 = SandboxRunbooks.start(dir.resolve("3.7"), "3.7.3", Map.of());
        ClusterProbe probe = new ClusterProbe(on37.cluster())) {
      probe.putMany("/registry/pods/default/p-", 200);
      BackupRecord backup =
          on37.backupStub().backup(BackupClusterRequest.of("sandbox", "on 3.7", OPTIONS));
      Map<String, ClusterProbe.StoredKey> atBackup = probe.dump(backup.revision());
      assertThat(backup.etcdVersion()).isEqualTo("3.7.3");
      assertThat(backup.keyCount()).isEqualTo(backup.liveKeys()).isEqualTo(200);
      probe.putMany("/registry/pods/default/lost-", 20);
      on37.destroy("m2");

      assertRestoresWithRevisionBump(on37, backup, atBackup, "3.7.3");
    }
  }

  /** RestoreCluster from the backup: its keys, its revision plus the bump, hashkv equal. */
  private static void assertRestoresWithRevisionBump(
      SandboxRunbooks runbooks,
      BackupRecord backup,
      Map<String, ClusterProbe.StoredKey> atBackup,
      String version)
      throws Exception {
    RestoreResult result =
        runbooks
            .restoreStub()
            .restore(
                RestoreRequest.of("sandbox", backup.id(), OPTIONS)
                    .acknowledgingDataLoss()
                    .withEtcdVersion(""));

    assertThat(result.backup().id()).isEqualTo(backup.id());
    assertThat(result.revisionBump()).isPositive();
    assertThat(result.revisionAfter()).isEqualTo(backup.revision() + result.revisionBump());
    assertThat(result.liveKeysAfter()).isEqualTo(atBackup.size());
    assertThat(result.memberVersions().values()).containsOnly(version);
    List<String> members = runbooks.cluster().members().stream().map(MemberSpec::name).toList();
    try (ClusterProbe probe = new ClusterProbe(runbooks.cluster())) {
      assertThat(probe.dump(0)).isEqualTo(atBackup);
      assertThat(probe.revision()).isEqualTo(result.revisionAfter());
    }
    ClusterAssertions.assertHealthyAndIntact(runbooks, members, version, atBackup);
  }

  private List<String> memberNames() {
    return runbooks.cluster().members().stream().map(MemberSpec::name).toList();
  }

  private Map<String, ClusterProbe.StoredKey> dump() throws Exception {
    try (ClusterProbe probe = new ClusterProbe(runbooks.cluster())) {
      return probe.dump(0);
    }
  }

  /** Overwrites 20 keys with 100 KiB values until etcd refuses for NOSPACE. */
  private static void fillUntilNospace(ClusterProbe probe) throws Exception {
    for (int i = 0; i < 2000; i++) {
      try {
        probe.put("/registry/events/e-" + (i % 20), LARGE_VALUE);
      } catch (Exception e) {
        if (String.valueOf(e.getMessage()).contains("space exceeded")) return;
        throw e;
      }
    }
    throw new AssertionError("2000 puts of 100 KiB and no NOSPACE with a 16 MiB quota");
  }

  private static void awaitPhase(RecoverQuorumWorkflow workflow, Phase phase) throws Exception {
    Instant deadline = Instant.now().plus(Duration.ofMinutes(1));
    for (var now = workflow.progress(); now.phase() != phase; now = workflow.progress()) {
      assertThat(now.phase()).as("progress %s", now).isNotEqualTo(Phase.FAILED);
      assertThat(Instant.now()).as("progress %s", now).isBefore(deadline);
      TimeUnit.MILLISECONDS.sleep(200);
    }
  }
}
