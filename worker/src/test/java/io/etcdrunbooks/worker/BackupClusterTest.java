package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.etcdrunbooks.activities.backup.LastDrill;
import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.inventory.BackupSpec;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.Inventory;
import io.etcdrunbooks.inventory.InventoryLoader;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.testkit.Sandbox;
import io.etcdrunbooks.workflows.backup.BackupClusterRequest;
import io.etcdrunbooks.workflows.backup.BackupClusterWorkflow;
import io.etcdrunbooks.workflows.common.CompletedStep;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.Progress;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.drill.RestoreDrillRequest;
import io.etcdrunbooks.workflows.drill.RestoreDrillResult;
import io.etcdrunbooks.workflows.drill.RestoreDrillWorkflow;
import io.etcdrunbooks.workflows.model.BackupRecord;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The BackupCluster runbook through Temporal's test environment against a real 3-member sandbox.
 */
@RealEtcd
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class BackupClusterTest {

  @TempDir Path dir;

  @Test
  void
      backupClusterKeepsAVerifiedEncryptedBackupAndRetentionDropsTheOlderOneAndRestoreDrillsProveIt()
          throws Exception {
    try (SandboxRunbooks runbooks = SandboxRunbooks.start(dir, "3.5.30", Map.of());
        ClusterProbe probe = new ClusterProbe(runbooks.sandbox.cluster())) {
      probe.putManyUnordered("/registry/secrets/default/token-", 2000);
      long revision = probe.revision();
      setBackup(
          runbooks,
          new BackupSpec(
              true, runbooks.sandbox.cluster().backup().keyFile(), Sandbox.BACKUP_KEY_ID, 1, 0));

      BackupRecord first =
          stub(runbooks)
              .backup(
                  BackupClusterRequest.of(
                      "sandbox", "before maintenance", RunbookOptions.defaults()));
      BackupClusterWorkflow second = stub(runbooks);
      BackupRecord kept =
          second.backup(BackupClusterRequest.of("sandbox", "nightly", RunbookOptions.defaults()));

      assertThat(kept.encrypted()).isTrue();
      assertThat(kept.keyId()).isEqualTo(Sandbox.BACKUP_KEY_ID);
      assertThat(kept.revision()).isGreaterThanOrEqualTo(revision);
      assertThat(kept.id()).startsWith("backup-").isNotEqualTo(first.id());
      assertThat(runbooks.backups())
          .extracting(p -> p.getFileName().toString())
          .containsExactlyInAnyOrder(kept.id() + ".db.enc", kept.id() + ".json");
      byte[] stored = Files.readAllBytes(Path.of(kept.path()));
      assertThat(new String(stored, java.nio.charset.StandardCharsets.ISO_8859_1))
          .doesNotContain("/registry/secrets/");

      Progress progress = second.progress();
      assertThat(progress.runbook()).isEqualTo(BackupClusterWorkflow.TYPE);
      assertThat(progress.phase()).isEqualTo(Phase.DONE);
      assertThat(progress.completed())
          .extracting(CompletedStep::name)
          .containsExactly("verified backup " + kept.id(), "off-site copy", "retention");
      assertThat(progress.completed()).extracting(CompletedStep::outcome).containsOnly("done");
      assertThat(progress.message()).contains("deleted [" + first.id() + "]");

      restoreDrillsProve(runbooks, kept);
    }
  }

  @Test
  void backupClusterCopiesTheEncryptedBackupToTheOffsiteHostOverSftpWithTheSameChecksum()
      throws Exception {
    try (SandboxRunbooks runbooks = SandboxRunbooks.start(dir, "3.4.23", Map.of());
        ClusterProbe probe = new ClusterProbe(runbooks.sandbox.cluster())) {
      probe.putManyUnordered("/registry/secrets/default/offsite-", 300);
      MemberPlacement offsite = runbooks.sandbox.addHost("offsite", "unused");
      Path remoteDir = runbooks.sandbox.hostRoot("offsite").resolve("srv/etcd-backups");
      BackupSpec current = runbooks.sandbox.cluster().backup();
      setBackup(
          runbooks,
          new BackupSpec(
              true,
              current.keyFile(),
              current.keyId(),
              null,
              null,
              null,
              new BackupSpec.CopyTo(offsite.host(), offsite.sshPort(), remoteDir.toString())));

      BackupClusterWorkflow workflow = stub(runbooks);
      BackupRecord kept =
          workflow.backup(
              BackupClusterRequest.of("sandbox", "off-site", RunbookOptions.defaults()));

      Path copy = remoteDir.resolve(kept.id() + ".db.enc");
      assertThat(copy).exists();
      assertThat(io.etcdrunbooks.activities.host.BinaryInstaller.sha256Of(copy))
          .isEqualTo(kept.sha256());
      assertThat(remoteDir.resolve(kept.id() + ".json")).exists();
      assertThat(new String(Files.readAllBytes(copy), java.nio.charset.StandardCharsets.ISO_8859_1))
          .doesNotContain("/registry/secrets/");
      assertThat(workflow.progress().message())
          .contains("copied to " + offsite.host() + ":" + copy);
      try (SshConnector ssh = new SshConnector()) {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new BackupMetrics(runbooks.inventory, ssh, registry).refresh();
        String age = "etcd_runbooks_backup_newest_verified_age_seconds{etcd_cluster=\"sandbox\",";
        assertThat(sample(registry.scrape(), age + "target=\"offsite\"}")).isBetween(0.0, 300.0);
        assertThat(sample(registry.scrape(), age + "target=\"local\"}")).isBetween(0.0, 300.0);
      }

      drillsProveEachTargetsOwnCopy(runbooks, kept, copy);
    }
  }

  /**
   * A drill without a backupId restores the worker's and the off-site host's copy of {@code kept},
   * each from its own target; with one byte of the off-site copy flipped it fails naming that
   * target while the worker's copy passed, and no fetched copy stays in the worker's directory.
   */
  private static void drillsProveEachTargetsOwnCopy(
      SandboxRunbooks runbooks, BackupRecord kept, Path offsiteCopy) throws Exception {
    RestoreDrillResult both = drillStub(runbooks).drill(RestoreDrillRequest.newest("sandbox"));

    assertThat(both.targets())
        .extracting(
            RestoreDrillResult.Target::target,
            RestoreDrillResult.Target::backupId,
            RestoreDrillResult.Target::passed)
        .containsExactly(tuple("local", kept.id(), true), tuple("offsite", kept.id(), true));
    assertThat(both.tool()).isEqualTo("etcdctl " + kept.etcdVersion());

    byte[] bytes = Files.readAllBytes(offsiteCopy);
    bytes[bytes.length / 2] ^= 1;
    Files.write(offsiteCopy, bytes);
    RestoreDrillWorkflow failing = drillStub(runbooks);
    assertThatThrownBy(() -> failing.drill(RestoreDrillRequest.newest("sandbox")))
        .isInstanceOf(WorkflowFailedException.class)
        .satisfies(
            e -> {
              assertThat(Failures.rootType(e)).isEqualTo("RestoreDrillFailed");
              assertThat(Failures.rootMessage(e))
                  .contains(
                      "target offsite (backup " + kept.id() + ")",
                      "SHA-256",
                      "passed on local (backup " + kept.id() + ")")
                  .doesNotContain("target local");
            });
    LastDrill last = LastDrill.read(runbooks.sandbox.inventory().cluster("sandbox")).orElseThrow();
    assertThat(last.passed()).isFalse();
    assertThat(last.target()).isEqualTo("offsite");
    assertThat(runbooks.backups())
        .extracting(p -> p.getFileName().toString())
        .containsExactlyInAnyOrder(
            kept.id() + ".db.enc", kept.id() + ".json", "restore-drill.last");
  }

  @Test
  void backupClusterOfAClusterWithoutABackupKeyFailsNamingTheSettingAndStoresNothing()
      throws Exception {
    try (SandboxRunbooks runbooks = SandboxRunbooks.start(dir, "3.5.30", Map.of())) {
      setBackup(runbooks, null);
      BackupClusterWorkflow workflow = stub(runbooks);

      assertThatThrownBy(
              () ->
                  workflow.backup(
                      BackupClusterRequest.of("sandbox", "", RunbookOptions.defaults())))
          .isInstanceOf(WorkflowFailedException.class)
          .satisfies(
              e ->
                  assertThat(Failures.rootMessage(e))
                      .contains("has no backup key", "backup.keyFile", "backup.encrypt: false"));
      assertThat(workflow.progress().phase()).isEqualTo(Phase.FAILED);
      assertThat(runbooks.backups()).isEmpty();
    }
  }

  /**
   * Issue 30's test 5, on {@code kept}: restored on the worker into a throwaway etcd of its
   * version, it passes; its recorded keyspace hash edited, it fails naming the backup, its target
   * and the hash. Neither drill leaves its scratch directory behind, and the worker's scrape shows
   * the last drill failed after one passed and the backup's age on the worker.
   */
  private static void restoreDrillsProve(SandboxRunbooks runbooks, BackupRecord backup)
      throws Exception {
    assertThat(backup.keyspaceHash()).isNotNull();
    assertThat(backup.keyspaceHash().revision()).isEqualTo(backup.revision());

    RestoreDrillResult passed = drillStub(runbooks).drill(RestoreDrillRequest.newest("sandbox"));

    assertThat(passed.passed()).as("%s", passed.differences()).isTrue();
    assertThat(passed.backupId()).isEqualTo(backup.id());
    assertThat(passed.target()).isEqualTo("local");
    assertThat(passed.tool()).isEqualTo("etcdutl " + backup.etcdVersion());
    assertThat(passed.actualRevision()).isEqualTo(backup.revision());
    assertThat(passed.actualLiveKeys()).isEqualTo(backup.liveKeys()).isGreaterThanOrEqualTo(2000);
    assertThat(passed.actualKeyspaceHash()).isEqualTo(backup.keyspaceHash());
    assertThat(passed.notCompared()).isEmpty();

    Path backupDir = Path.of(backup.path()).getParent();
    Path json = backupDir.resolve(backup.id() + ".json");
    ObjectNode record = (ObjectNode) new ObjectMapper().readTree(json.toFile());
    long recorded = backup.keyspaceHash().hash();
    ((ObjectNode) record.get("keyspaceHash")).put("hash", recorded ^ 1);
    Files.write(json, new ObjectMapper().writeValueAsBytes(record));

    RestoreDrillWorkflow failing = drillStub(runbooks);
    assertThatThrownBy(
            () -> failing.drill(RestoreDrillRequest.newest("sandbox").withBackupId(backup.id())))
        .isInstanceOf(WorkflowFailedException.class)
        .satisfies(
            e -> {
              assertThat(Failures.rootType(e)).isEqualTo("RestoreDrillFailed");
              assertThat(Failures.rootMessage(e))
                  .contains(
                      "backup " + backup.id(),
                      "target local",
                      "keyspace hash",
                      "recorded " + (recorded ^ 1),
                      "gives " + recorded);
            });
    try (var left = Files.list(backupDir)) {
      assertThat(left.map(p -> p.getFileName().toString()))
          .noneMatch(n -> n.startsWith(".restore-drill-") || n.contains(".restore-"));
    }

    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new BackupMetrics(runbooks.inventory, null, registry).refresh();
    String scrape = registry.scrape();
    String cluster = "{etcd_cluster=\"sandbox\"}";
    assertThat(sample(scrape, "etcd_runbooks_restore_drill_last_result" + cluster)).isEqualTo(0);
    LastDrill last = LastDrill.read(runbooks.sandbox.inventory().cluster("sandbox")).orElseThrow();
    assertThat(
            sample(scrape, "etcd_runbooks_restore_drill_last_success_timestamp_seconds" + cluster))
        .isCloseTo(Instant.parse(last.lastSuccessAt()).toEpochMilli() / 1000.0, within(0.01))
        .isLessThan(Instant.parse(last.finishedAt()).toEpochMilli() / 1000.0);
    assertThat(
            sample(
                scrape,
                "etcd_runbooks_backup_newest_verified_age_seconds{etcd_cluster=\"sandbox\",target=\"local\"}"))
        .isBetween(0.0, 300.0);
  }

  /** The value of one series in a Prometheus scrape. */
  static double sample(String scrape, String series) {
    return scrape
        .lines()
        .filter(l -> l.startsWith(series + " "))
        .map(l -> Double.parseDouble(l.substring(series.length() + 1).strip()))
        .findFirst()
        .orElseThrow(() -> new AssertionError(series + " is not in the scrape:\n" + scrape));
  }

  private static RestoreDrillWorkflow drillStub(SandboxRunbooks runbooks) {
    return runbooks
        .client()
        .newWorkflowStub(
            RestoreDrillWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(RestoreDrillWorkflow.workflowId("sandbox"))
                .setTaskQueue(SandboxRunbooks.TASK_QUEUE)
                .build());
  }

  private static BackupClusterWorkflow stub(SandboxRunbooks runbooks) {
    return runbooks
        .client()
        .newWorkflowStub(
            BackupClusterWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(BackupClusterWorkflow.workflowId("sandbox"))
                .setTaskQueue(SandboxRunbooks.TASK_QUEUE)
                .build());
  }

  /**
   * Rewrites the sandbox's inventory with another backup section; the worker reads it again when it
   * changes.
   */
  private static void setBackup(SandboxRunbooks runbooks, BackupSpec backup) throws Exception {
    Inventory inventory = runbooks.sandbox.inventory();
    ClusterSpec c = inventory.cluster("sandbox");
    ClusterSpec changed =
        new ClusterSpec(
            c.name(),
            c.members(),
            c.service(),
            c.ssh(),
            c.tls(),
            c.backupDir(),
            c.controlPlane(),
            backup);
    Path file = runbooks.sandbox.inventoryFile();
    FileTime before = Files.getLastModifiedTime(file);
    InventoryLoader.write(new Inventory(inventory.releases(), Map.of("sandbox", changed)), file);
    Files.setLastModifiedTime(file, FileTime.fromMillis(before.toMillis() + 2_000));
  }
}
