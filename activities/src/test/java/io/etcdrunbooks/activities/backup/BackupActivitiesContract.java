package io.etcdrunbooks.activities.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.activities.etcd.EtcdActivitiesImpl;
import io.etcdrunbooks.activities.etcd.EtcdClients;
import io.etcdrunbooks.sandbox.Sandbox;
import io.etcdrunbooks.sandbox.SandboxSpec;
import io.etcdrunbooks.testing.EtcdReleases;
import io.etcdrunbooks.testing.TestKeys;
import io.etcdrunbooks.workflows.activities.BackupActivities.BackupRequest;
import io.etcdrunbooks.workflows.model.BackupRecord;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.temporal.failure.ApplicationFailure;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@link BackupActivitiesImpl} against a real 3-member sandbox cluster (members behind SSH, as on hosts); one subclass per etcd version. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
abstract class BackupActivitiesContract {

  @TempDir static Path dir;
  private Sandbox cluster;
  private BackupActivitiesImpl backups;
  private long writtenRevision;

  abstract String version();

  @BeforeAll
  void startClusterWithAFewThousandKeys() throws Exception {
    cluster = Sandbox.create(new SandboxSpec(dir.resolve("cluster"), "c1", 3, version()), EtcdReleases.store());
    backups = new BackupActivitiesImpl(cluster::inventory, EtcdReleases.store());
    try (EtcdClients clients = new EtcdClients(cluster.cluster())) {
      writtenRevision = TestKeys.put(clients.cluster(), "/registry/pods/", 3000, "x".repeat(200));
      TestKeys.put(clients.cluster(), "/registry/pods/", 100, "overwritten");
    }
  }

  @AfterAll
  void stopCluster() {
    if (cluster != null) cluster.close();
  }

  @Test
  void takeVerifiedBackup_keepsAVerifiedSnapshotFromAFollowerWithItsMetadata() throws Exception {
    String leader = new EtcdActivitiesImpl(cluster::inventory).discover(new ClusterRef("c1")).leaderName();

    BackupRecord record = backups.takeVerifiedBackup(new BackupRequest("c1", "before-upgrade-1"));

    Path file = Path.of(cluster.cluster().backupDir(), "before-upgrade-1.db");
    assertThat(record.id()).isEqualTo("before-upgrade-1");
    assertThat(record.cluster()).isEqualTo("c1");
    assertThat(record.member()).isNotEqualTo(leader).isIn("m1", "m2", "m3");
    assertThat(record.etcdVersion()).isEqualTo(version());
    assertThat(record.revision()).isGreaterThanOrEqualTo(writtenRevision + 1);
    // totalKey: every stored revision of every key plus bookkeeping entries (3000 keys, 100 of them twice)
    assertThat(record.keyCount()).isBetween(3100L, 3100L + 20);
    assertThat(record.path()).isEqualTo(file.toAbsolutePath().toString());
    assertThat(record.sizeBytes()).isEqualTo(Files.size(file));
    assertThat(record.sha256()).isEqualTo(sha256(file));
    assertThat(Path.of(cluster.cluster().backupDir(), "before-upgrade-1.json")).exists();
    assertThat(Path.of(cluster.cluster().backupDir(), "before-upgrade-1.db.part")).doesNotExist();
  }

  @Test
  void takeVerifiedBackup_again_returnsTheKeptRecordWithoutANewSnapshot() throws Exception {
    BackupRecord first = backups.takeVerifiedBackup(new BackupRequest("c1", "again"));
    Path file = Path.of(first.path());
    FileTime written = FileTime.fromMillis(1_000_000L);
    Files.setLastModifiedTime(file, written);
    try (EtcdClients clients = new EtcdClients(cluster.cluster())) {
      TestKeys.put(clients.cluster(), "/later", "write");
    }

    BackupRecord second = backups.takeVerifiedBackup(new BackupRequest("c1", "again"));

    assertThat(second).isEqualTo(first);
    assertThat(Files.getLastModifiedTime(file)).isEqualTo(written);
  }

  @Test
  void takeVerifiedBackup_whoseKeptFileChanged_failsAsBackupCorrupt() throws Exception {
    BackupRecord first = backups.takeVerifiedBackup(new BackupRequest("c1", "tampered"));
    Files.write(Path.of(first.path()), new byte[] {1, 2, 3}, java.nio.file.StandardOpenOption.APPEND);

    assertThatThrownBy(() -> backups.takeVerifiedBackup(new BackupRequest("c1", "tampered")))
        .isInstanceOfSatisfying(ApplicationFailure.class, f -> {
          assertThat(f.getType()).isEqualTo("BackupCorrupt");
          assertThat(f.getOriginalMessage()).contains("tampered.db");
        });
  }

  @Test
  void takeVerifiedBackup_withAnIdThatIsNotAFileName_failsAsInvalidRequest() {
    assertThatThrownBy(() -> backups.takeVerifiedBackup(new BackupRequest("c1", "../escape")))
        .isInstanceOfSatisfying(ApplicationFailure.class, f -> assertThat(f.getType()).isEqualTo("InvalidRequest"));
  }

  private static String sha256(Path file) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
  }
}
