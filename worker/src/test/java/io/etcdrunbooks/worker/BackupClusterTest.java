package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import io.etcdrunbooks.workflows.model.BackupRecord;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
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
  void backupClusterKeepsAVerifiedEncryptedBackupAndRetentionDropsTheOlderOne() throws Exception {
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
    }
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
