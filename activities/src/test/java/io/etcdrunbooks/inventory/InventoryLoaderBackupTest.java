package io.etcdrunbooks.inventory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class InventoryLoaderBackupTest {

  private static final String CLUSTER =
      """
      releases: {localDir: /opt/releases}
      clusters:
        prod:
          ssh: {user: ops, privateKeyFile: /k, knownHostsFile: /kh}
          service: {kind: systemd, unit: etcd}
          backupDir: /var/backups/etcd/prod
          members:
            - {name: m1, host: 10.0.0.1, clientUrl: "https://10.0.0.1:2379", peerUrl: "https://10.0.0.1:2380", dataDir: /d, installDir: /i}
      """;

  @TempDir Path dir;

  @Test
  void anInventoryWithoutABackupSectionStaysValidAndItsBackupsAreEncrypted() throws Exception {
    BackupSpec backup = load(CLUSTER).cluster("prod").backupSettings();

    assertThat(backup.encrypts()).isTrue();
    assertThat(backup.keyFile()).isNull();
    assertThat(backup.keepLastOrDefault()).isEqualTo(BackupSpec.DEFAULT_KEEP_LAST);
    assertThat(backup.keepDailyDaysOrDefault()).isEqualTo(BackupSpec.DEFAULT_KEEP_DAILY_DAYS);
  }

  @Test
  void aWholeBackupSectionIsRead() throws Exception {
    BackupSpec backup =
        load(CLUSTER
                + "    backup: {keyFile: /etc/k, keyId: prod-2026, keepLast: 3, keepDailyDays: 10}\n")
            .cluster("prod")
            .backupSettings();

    assertThat(backup).isEqualTo(new BackupSpec(null, "/etc/k", "prod-2026", 3, 10));
    assertThat(backup.encrypts()).isTrue();
  }

  @Test
  void encryptFalseWrittenOutIsValidWithoutAKey() throws Exception {
    assertThat(
            load(CLUSTER + "    backup: {encrypt: false}\n")
                .cluster("prod")
                .backupSettings()
                .encrypts())
        .isFalse();
  }

  @Test
  void theEncryptionConfigurationIsKeptOnlyWithEncryptionAndItsPathMustBeAbsolute()
      throws Exception {
    assertThat(
            load(CLUSTER + "    backup: {keyFile: /etc/k, keyId: k, keepEncryptionConfig: true}\n")
                .cluster("prod")
                .backupSettings()
                .keepsEncryptionConfig())
        .isTrue();
    assertThatThrownBy(
            () -> prod(CLUSTER + "    backup: {encrypt: false, keepEncryptionConfig: true}\n"))
        .hasMessageContaining("backup.keepEncryptionConfig")
        .hasMessageContaining("encrypt: true");
    assertThatThrownBy(
            () ->
                prod(
                    CLUSTER
                        + "    controlPlane:\n"
                        + "      - {name: cp1, host: 10.0.0.1, manifestPath: /etc/m.yaml, healthUrl:"
                        + " 'https://10.0.0.1:6443/readyz', encryptionConfigPath: enc.yaml}\n"))
        .hasMessageContaining("control-plane host 'cp1'")
        .hasMessageContaining("encryptionConfigPath");
  }

  @Test
  void aBackupSectionWithoutKeyOrContradictoryOrWithBadRetentionIsRefusedNamingTheCluster() {
    assertThatThrownBy(() -> prod(CLUSTER + "    backup: {keepLast: 3}\n"))
        .hasMessageContaining("cluster 'prod': backup.keyFile and backup.keyId are required")
        .hasMessageContaining("encrypt: false");
    assertThatThrownBy(() -> prod(CLUSTER + "    backup: {encrypt: false, keyFile: /etc/k}\n"))
        .hasMessageContaining("backup.encrypt is false but backup.keyFile or backup.keyId is set");
    assertThatThrownBy(
            () ->
                prod(
                    CLUSTER
                        + "    backup: {keyFile: /etc/k, keyId: 'no spaces', keepLast: 0, keepDailyDays: -1}\n"))
        .hasMessageContaining("backup.keyId 'no spaces'")
        .hasMessageContaining("backup.keepLast must be at least 1")
        .hasMessageContaining("backup.keepDailyDays must not be negative");
    assertThatThrownBy(
            () -> prod(CLUSTER + "    backup: {keyFile: /etc/k, keyId: k, encrypted: true}\n"))
        .hasMessageContaining("encrypted");
  }

  @Test
  void anObjectStoreIsReadWithItsDefaults() throws Exception {
    BackupSpec backup =
        load(CLUSTER
                + "    backup: {keyFile: /etc/k, keyId: k, objectStore: {bucket: etcd-backups,"
                + " prefix: prod/etcd, credentialsFile: /etc/etcd-runbooks/s3-credentials}}\n")
            .cluster("prod")
            .backupSettings();

    assertThat(backup.objectStore())
        .isEqualTo(
            new BackupSpec.ObjectStore(
                "etcd-backups",
                "prod/etcd",
                null,
                null,
                false,
                "/etc/etcd-runbooks/s3-credentials"));
    assertThat(backup.objectStore().regionOrDefault()).isEqualTo("us-east-1");
  }

  @Test
  void aBadObjectStoreIsRefusedNamingTheClusterAndFieldWithoutEchoingAnEndpointsCredentials() {
    assertThatThrownBy(
            () ->
                prod(
                    CLUSTER
                        + "    backup: {keyFile: /etc/k, keyId: k, objectStore: {bucket: Etcd_Backups,"
                        + " prefix: /prod/, region: 'eu west', endpoint: 'https://AKIA:hunter2@minio:9000',"
                        + " credentialsFile: creds}}\n"))
        .hasMessageContaining("cluster 'prod': backup.objectStore.bucket must be an S3 bucket name")
        .hasMessageContaining("backup.objectStore.prefix must not start or end with '/'")
        .hasMessageContaining("backup.objectStore.region must be a region name")
        .hasMessageContaining("backup.objectStore.endpoint must be an http(s)://host[:port] URL")
        .hasMessageContaining("backup.objectStore.credentialsFile must be an absolute path")
        .hasMessageNotContaining("hunter2");
    assertThatThrownBy(
            () ->
                prod(
                    CLUSTER
                        + "    backup: {keyFile: /etc/k, keyId: k, objectStore: {prefix: p}}\n"))
        .hasMessageContaining("backup.objectStore.bucket must be an S3 bucket name");
    assertThatThrownBy(
            () ->
                prod(
                    CLUSTER
                        + "    backup: {keyFile: /etc/k, keyId: k, objectStore: {bucket: b1, secretKey: x}}\n"))
        .hasMessageContaining("secretKey");
  }

  @Test
  void theExampleInventoryNamesABackupKeyAndRetention() {
    BackupSpec backup =
        InventoryLoader.load(Path.of("..", "deploy", "examples", "inventory.yaml"))
            .cluster("prod-1")
            .backupSettings();

    assertThat(backup)
        .isEqualTo(
            new BackupSpec(
                null, "/etc/etcd-runbooks/backup-keys/prod-1.key", "prod-1-2026", 7, 14));
  }

  private Inventory load(String yaml) throws Exception {
    Path file = dir.resolve("inventory-" + System.nanoTime() + ".yaml");
    Files.writeString(file, yaml);
    return InventoryLoader.load(file);
  }

  /** The cluster prod: an entry with a problem is refused by name, the file's problems whole. */
  private ClusterSpec prod(String yaml) throws Exception {
    return load(yaml).cluster("prod");
  }
}
