package io.etcdrunbooks.activities.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.activities.etcd.EtcdActivitiesImpl;
import io.etcdrunbooks.activities.etcd.EtcdClients;
import io.etcdrunbooks.activities.targets.ClusterTargets;
import io.etcdrunbooks.inventory.BackupSpec;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.Inventory;
import io.etcdrunbooks.testkit.EtcdReleases;
import io.etcdrunbooks.testkit.ReferenceDecrypter;
import io.etcdrunbooks.testkit.Sandbox;
import io.etcdrunbooks.testkit.SandboxSpec;
import io.etcdrunbooks.testkit.TestKeys;
import io.etcdrunbooks.workflows.activities.BackupActivities.BackupRequest;
import io.etcdrunbooks.workflows.activities.EtcdActivities.KeyspaceDigestRequest;
import io.etcdrunbooks.workflows.model.BackupRecord;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.EtcdVersion;
import io.temporal.failure.ApplicationFailure;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link BackupActivitiesImpl} against a real 3-member sandbox cluster (members behind SSH, as on
 * hosts); one subclass per etcd version.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
abstract class BackupActivitiesContract {

  private static final String SECRET_PREFIX = "/registry/secrets/default/db-password-";
  private static final String SECRET_VALUE = "hunter2-TOP-SECRET";
  private static final int LIVE_KEYS = 3000 + 200;

  @TempDir static Path dir;
  private Sandbox cluster;
  private BackupActivitiesImpl backups;
  private long writtenRevision;

  abstract String version();

  @BeforeAll
  void startClusterWithAFewThousandKeys() throws Exception {
    cluster =
        Sandbox.create(
            new SandboxSpec(dir.resolve("cluster"), "c1", 3, version()), EtcdReleases.store());
    backups =
        new BackupActivitiesImpl(ClusterTargets.etcdOnly(cluster::inventory), EtcdReleases.store());
    try (EtcdClients clients = new EtcdClients(cluster.cluster())) {
      writtenRevision = TestKeys.put(clients.cluster(), "/registry/pods/", 3000, "x".repeat(200));
      TestKeys.put(clients.cluster(), "/registry/pods/", 100, "overwritten");
      writtenRevision = TestKeys.put(clients.cluster(), SECRET_PREFIX, 200, SECRET_VALUE);
    }
  }

  @AfterAll
  void stopCluster() {
    if (cluster != null) cluster.close();
  }

  @Test
  void takeVerifiedBackupKeepsAVerifiedSnapshotFromAFollowerWithItsMetadata() throws Exception {
    String leader =
        new EtcdActivitiesImpl(ClusterTargets.etcdOnly(cluster::inventory))
            .discover(new ClusterRef("c1"))
            .leaderName();

    BackupRecord record = backups.takeVerifiedBackup(new BackupRequest("c1", "before-upgrade-1"));

    Path file = Path.of(cluster.cluster().backupDir(), "before-upgrade-1.db.enc");
    assertThat(record.id()).isEqualTo("before-upgrade-1");
    assertThat(record.cluster()).isEqualTo("c1");
    assertThat(record.member()).isNotEqualTo(leader).isIn("m1", "m2", "m3");
    assertThat(record.etcdVersion()).isEqualTo(version());
    assertThat(record.revision()).isGreaterThanOrEqualTo(writtenRevision);
    if (EtcdVersion.parse(version()).isBefore(EtcdVersion.parse("3.6.0"))) {
      // totalKey: every stored revision of every key plus bookkeeping entries (3200 keys, 100 of
      // them twice)
      assertThat(record.keyCount()).isBetween(LIVE_KEYS + 100L, LIVE_KEYS + 100L + 20);
    } else {
      // 3.6's etcdutl counts the keys alive at the snapshot's revision
      assertThat(record.keyCount()).isEqualTo(LIVE_KEYS);
    }
    assertThat(record.liveKeys()).isEqualTo(LIVE_KEYS);
    assertThat(record.encrypted()).isTrue();
    assertThat(record.keyId()).isEqualTo(Sandbox.BACKUP_KEY_ID);
    assertThat(record.path()).isEqualTo(file.toAbsolutePath().toString());
    assertThat(record.sizeBytes()).isEqualTo(Files.size(file));
    assertThat(record.sha256()).isEqualTo(sha256(file));
    assertThat(Path.of(cluster.cluster().backupDir(), "before-upgrade-1.json")).exists();
    assertThat(Files.getPosixFilePermissions(file))
        .isEqualTo(PosixFilePermissions.fromString("rw-------"));
    try (var left = Files.list(Path.of(cluster.cluster().backupDir()))) {
      assertThat(
              left.map(p -> p.getFileName().toString())
                  .filter(n -> n.startsWith("before-upgrade-1")))
          .containsExactlyInAnyOrder("before-upgrade-1.db.enc", "before-upgrade-1.json");
    }
  }

  @Test
  void takeVerifiedBackupStoresNoKeyOrValueInPlaintextAndDecryptsToTheSnapshotEtcdsToolVerified()
      throws Exception {
    BackupRecord record = backups.takeVerifiedBackup(new BackupRequest("c1", "encrypted"));
    byte[] stored = Files.readAllBytes(Path.of(record.path()));
    Path decrypted = dir.resolve("decrypted-" + version() + ".db");
    BackupKey key =
        BackupKey.read(
            Path.of(cluster.cluster().backup().keyFile()), cluster.cluster().backup().keyId());
    try (var in = Files.newInputStream(Path.of(record.path()));
        var out = Files.newOutputStream(decrypted)) {
      new SnapshotCipher(key).decrypt(in, out);
    }
    byte[] plaintext = Files.readAllBytes(decrypted);

    for (String secret :
        new String[] {
          SECRET_PREFIX, SECRET_VALUE, "/registry/pods/00042", "x".repeat(64), "overwritten-7"
        }) {
      assertThat(indexOf(plaintext, secret.getBytes()))
          .as("in the decrypted snapshot: %s", secret)
          .isNotNegative();
      assertThat(indexOf(stored, secret.getBytes()))
          .as("in the stored file: %s", secret)
          .isEqualTo(-1);
    }
    SnapshotStatus status =
        SnapshotStatus.read(EtcdReleases.binDir(version()), version(), decrypted);
    assertThat(status.revision()).isEqualTo(record.revision());
    assertThat(status.hash()).isEqualTo(record.hash());
    assertThat(status.totalKey()).isEqualTo(record.keyCount());
    assertThat(record.sha256()).isEqualTo(sha256(Path.of(record.path())));
    assertThat(record.sizeBytes()).isEqualTo(stored.length);

    EtcdActivitiesImpl etcd = new EtcdActivitiesImpl(ClusterTargets.etcdOnly(cluster::inventory));
    var state = etcd.discover(new ClusterRef("c1"));
    assertThat(state.member(record.member()).orElseThrow().serverVersion())
        .isEqualTo(record.etcdVersion());
    assertThat(record.revision()).isBetween(writtenRevision, state.revision());
    assertThat(etcd.keyspaceDigest(new KeyspaceDigestRequest("c1", record.revision())).keyCount())
        .isEqualTo(LIVE_KEYS);
    String metadata = Files.readString(Path.of(cluster.cluster().backupDir(), "encrypted.json"));
    assertThat(metadata)
        .contains("\"keyId\" : \"" + Sandbox.BACKUP_KEY_ID + "\"")
        .doesNotContain(Files.readString(Path.of(cluster.cluster().backup().keyFile())).strip());
  }

  @Test
  void takeVerifiedBackupForAClusterWithoutABackupKeyRefusesBeforeTakingAnything()
      throws Exception {
    BackupActivitiesImpl unkeyed =
        new BackupActivitiesImpl(
            ClusterTargets.etcdOnly(() -> withBackup(null)), EtcdReleases.store());

    assertThatThrownBy(() -> unkeyed.takeVerifiedBackup(new BackupRequest("c1", "no-key")))
        .isInstanceOfSatisfying(
            ApplicationFailure.class,
            f -> {
              assertThat(f.getType()).isEqualTo("BackupKeyUnusable");
              assertThat(f.getOriginalMessage())
                  .contains("backup.keyFile", "backup.encrypt: false");
            });
    assertThat(Path.of(cluster.cluster().backupDir(), "no-key.json")).doesNotExist();
  }

  @Test
  void takeVerifiedBackupWithEncryptFalseWrittenOutKeepsAPlainSnapshot() throws Exception {
    BackupActivitiesImpl plain =
        new BackupActivitiesImpl(
            ClusterTargets.etcdOnly(
                () -> withBackup(new BackupSpec(false, null, null, null, null))),
            EtcdReleases.store());

    BackupRecord record = plain.takeVerifiedBackup(new BackupRequest("c1", "plain"));

    assertThat(record.encrypted()).isFalse();
    assertThat(record.keyId()).isEmpty();
    assertThat(record.path()).endsWith("plain.db");
    assertThat(
            SnapshotStatus.read(EtcdReleases.binDir(version()), version(), Path.of(record.path()))
                .hash())
        .isEqualTo(record.hash());
  }

  private Inventory withBackup(BackupSpec backup) {
    ClusterSpec c = cluster.cluster();
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
    return new Inventory(cluster.inventory().releases(), Map.of(c.name(), changed));
  }

  @Test
  void takeVerifiedBackupAgainReturnsTheKeptRecordWithoutANewSnapshot() throws Exception {
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
  void takeVerifiedBackupWhoseKeptFileChangedFailsAsBackupCorrupt() throws Exception {
    BackupRecord first = backups.takeVerifiedBackup(new BackupRequest("c1", "tampered"));
    Files.write(
        Path.of(first.path()), new byte[] {1, 2, 3}, java.nio.file.StandardOpenOption.APPEND);

    assertThatThrownBy(() -> backups.takeVerifiedBackup(new BackupRequest("c1", "tampered")))
        .isInstanceOfSatisfying(
            ApplicationFailure.class,
            f -> {
              assertThat(f.getType()).isEqualTo("BackupCorrupt");
              assertThat(f.getOriginalMessage()).contains("tampered.db");
            });
  }

  @Test
  void takeVerifiedBackupWithAnIdThatIsNotAFileNameFailsAsInvalidRequest() {
    assertThatThrownBy(() -> backups.takeVerifiedBackup(new BackupRequest("c1", "../escape")))
        .isInstanceOfSatisfying(
            ApplicationFailure.class, f -> assertThat(f.getType()).isEqualTo("InvalidRequest"));
  }

  /**
   * The backup is readable without this tool: the Python decrypter written from
   * docs/backup-format.md alone gives the same snapshot byte for byte, etcd's own tool reads it as
   * recorded, and a flipped byte is refused with nothing left at the output path.
   */
  @Test
  void aDecrypterWrittenFromTheFormatsDocumentReadsTheBackupByteForByte() throws Exception {
    BackupRecord record = backups.takeVerifiedBackup(new BackupRequest("c1", "for-python"));
    Path keyFile = Path.of(cluster.cluster().backup().keyFile());
    String keyId = cluster.cluster().backup().keyId();
    Path byJava = dir.resolve("by-java-" + version() + ".db");
    try (var in = Files.newInputStream(Path.of(record.path()));
        var out = Files.newOutputStream(byJava)) {
      new SnapshotCipher(BackupKey.read(keyFile, keyId)).decrypt(in, out);
    }
    Path byPython = dir.resolve("by-python-" + version() + ".db");

    ReferenceDecrypter.Outcome outcome =
        ReferenceDecrypter.decrypt(Path.of(record.path()), byPython, keyFile, keyId);

    assertThat(outcome.exitCode()).as(outcome.output()).isZero();
    assertThat(Files.mismatch(byPython, byJava)).as("first differing byte").isEqualTo(-1L);
    SnapshotStatus status =
        SnapshotStatus.read(EtcdReleases.binDir(version()), version(), byPython);
    assertThat(status.revision()).isEqualTo(record.revision());
    assertThat(status.hash()).isEqualTo(record.hash());

    byte[] damaged = Files.readAllBytes(Path.of(record.path()));
    damaged[damaged.length / 2] ^= 0x01;
    Path damagedFile = dir.resolve("damaged-" + version() + ".db.enc");
    Files.write(damagedFile, damaged);
    Path notWritten = dir.resolve("damaged-" + version() + ".db");
    ReferenceDecrypter.Outcome refused =
        ReferenceDecrypter.decrypt(damagedFile, notWritten, keyFile, keyId);
    assertThat(refused.exitCode()).isEqualTo(1);
    assertThat(refused.output()).contains("failed authentication");
    assertThat(notWritten).doesNotExist();
    assertThat(dir.resolve("damaged-" + version() + ".db.partial")).doesNotExist();
  }

  private static String sha256(Path file) throws Exception {
    return HexFormat.of()
        .formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
  }

  /**
   * Where {@code needle} first occurs in {@code haystack}, or -1 (as SnapshotCipherTest, in the
   * activities module, has it).
   */
  private static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) if (haystack[i + j] != needle[j]) continue outer;
      return i;
    }
    return -1;
  }
}
