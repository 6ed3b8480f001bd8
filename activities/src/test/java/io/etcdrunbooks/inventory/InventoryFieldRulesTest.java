package io.etcdrunbooks.inventory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Paths in the inventory must be absolute and free of control characters, and a systemd unit a
 * plain unit name; the loader refuses the cluster (the releases: the file) naming the cluster, the
 * member or host, and the field.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class InventoryFieldRulesTest {

  /** Every path field set, each to a placeholder the tests replace one at a time. */
  private static final String INVENTORY =
      """
      releases: {localDir: LOCAL_DIR, downloadDir: DOWNLOAD_DIR}
      clusters:
        prod:
          ssh: {user: ops, privateKeyFile: KEY_FILE, knownHostsFile: KNOWN_HOSTS}
          tls: {caFile: CA_FILE, certFile: CERT_FILE, keyFile: TLS_KEY}
          service: {kind: systemd, unit: UNIT}
          backupDir: BACKUP_DIR
          backup: {keyFile: BACKUP_KEY, keyId: prod-2026, copyTo: {host: 10.0.0.9, dir: /srv/etcd-backups}}
          members:
            - {name: m1, host: 10.0.0.1, clientUrl: "https://10.0.0.1:2379", peerUrl: "https://10.0.0.1:2380", dataDir: /var/lib/etcd, installDir: /opt/etcd}
            - {name: m2, host: 10.0.0.2, clientUrl: "https://10.0.0.2:2379", peerUrl: "https://10.0.0.2:2380", dataDir: DATA_DIR, installDir: INSTALL_DIR, serviceDir: SERVICE_DIR}
          controlPlane:
            - {name: cp-1, host: 10.0.0.1, manifestPath: MANIFEST_PATH, healthUrl: "https://10.0.0.1:6443/readyz"}
      """;

  @TempDir Path dir;

  @Test
  void absolutePathsEverywhereLoad() throws Exception {
    Inventory inventory = load(valid());

    assertThat(inventory.cluster("prod").member("m2").dataDir()).isEqualTo("/var/lib/etcd");
    assertThat(inventory.cluster("prod").service().unit()).isEqualTo("etcd@prod-1.service");
  }

  @ParameterizedTest(name = "{0} = ''{1}''")
  @CsvSource(
      delimiter = '|',
      value = {
        "DATA_DIR      | data/m2         | cluster 'prod' member 'm2': dataDir must be an absolute path, got 'data/m2'",
        "INSTALL_DIR   | opt/etcd        | cluster 'prod' member 'm2': installDir must be an absolute path, got 'opt/etcd'",
        "SERVICE_DIR   | ./etc/etcd      | cluster 'prod' member 'm2': serviceDir must be an absolute path, got './etc/etcd'",
        "KEY_FILE      | id_ed25519      | cluster 'prod': ssh.privateKeyFile must be an absolute path, got 'id_ed25519'",
        "KNOWN_HOSTS   | ~/.ssh/kh       | cluster 'prod': ssh.knownHostsFile must be an absolute path, got '~/.ssh/kh'",
        "CA_FILE       | tls/ca.crt      | cluster 'prod': tls.caFile must be an absolute path, got 'tls/ca.crt'",
        "CERT_FILE     | client.crt      | cluster 'prod': tls.certFile must be an absolute path, got 'client.crt'",
        "TLS_KEY       | client.key      | cluster 'prod': tls.keyFile must be an absolute path, got 'client.key'",
        "BACKUP_DIR    | backups         | cluster 'prod': backupDir must be an absolute path, got 'backups'",
        "BACKUP_KEY    | keys/prod.key   | cluster 'prod': backup.keyFile must be an absolute path, got 'keys/prod.key'",
        "MANIFEST_PATH | kube-apiserver.yaml | cluster 'prod' control-plane host 'cp-1': manifestPath must be an absolute path, got 'kube-apiserver.yaml'",
        "LOCAL_DIR     | releases        | releases: localDir must be an absolute path, got 'releases'",
        "DOWNLOAD_DIR  | downloads       | releases: downloadDir must be an absolute path, got 'downloads'"
      })
  void aRelativePath_isRefusedNamingItsClusterMemberAndField(
      String field, String value, String message) {
    assertThatThrownBy(() -> prod(with(field, value)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(message);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "DATA_DIR      | cluster 'prod' member 'm2': dataDir must not contain control characters, got '/var/lib/etcd\\n/x'",
        "KNOWN_HOSTS   | cluster 'prod': ssh.knownHostsFile must not contain control characters, got '/var/lib/etcd\\n/x'",
        "MANIFEST_PATH | cluster 'prod' control-plane host 'cp-1': manifestPath must not contain control characters",
        "UNIT          | cluster 'prod': service.unit must not contain control characters, got '/var/lib/etcd\\n/x'"
      })
  void aControlCharacterInAPathOrUnit_isRefusedAndShownEscaped(String field, String message) {
    // YAML's double-quoted "\n" is a real newline in the value
    assertThatThrownBy(() -> prod(with(field, "\"/var/lib/etcd\\n/x\"")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(message)
        .satisfies(e -> assertThat(e.getMessage().lines()).noneMatch(line -> line.equals("/x'")));
  }

  @ParameterizedTest(name = "unit ''{0}''")
  @CsvSource(
      delimiter = '|',
      value = {"'etcd; reboot'", "'etcd member'", "'$(id)'", "'etcd`x`'", "'-etcd'", "'etcd\\x2d'"})
  void aUnitWithShellSyntaxOrWhitespace_isRefused(String unit) {
    assertThatThrownBy(() -> prod(with("UNIT", unit)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cluster 'prod': service.unit must be a systemd unit name");
  }

  @Test
  void aMemberNameOrHostWithAControlCharacterIsRefusedAndTheMessageStaysOnOneLine() {
    assertThatThrownBy(() -> prod(valid().replace("name: m2", "name: \"m2\\nINFO forged\"")))
        .hasMessageContaining(
            "cluster 'prod' member 'm2\\nINFO forged': name must not contain control characters");
    assertThatThrownBy(() -> prod(valid().replace("host: 10.0.0.2", "host: \"10.0.0.2\\t\"")))
        .hasMessageContaining(
            "cluster 'prod' member 'm2': host must not contain control characters, got '10.0.0.2\\t'");
  }

  @Test
  void aCertificateExpiryWindowOutsideZeroToTenYearsIsRefusedAndOneInsideLoads() throws Exception {
    String tls = "tls: {caFile: /pki/ca.crt, certFile: /pki/c.crt, keyFile: /pki/c.key";
    assertThatThrownBy(
            () -> prod(valid().replaceFirst("tls: \\{[^}]*", tls + ", expiryWarningDays: -1")))
        .hasMessageContaining(
            "cluster 'prod': tls.expiryWarningDays must be 0 to 3650 days, got -1");
    assertThat(
            load(valid().replaceFirst("tls: \\{[^}]*", tls + ", expiryWarningDays: 30"))
                .cluster("prod")
                .tls()
                .expiryWarningDays())
        .isEqualTo(30);
  }

  @Test
  void aStaticPodManifestPathWithAControlCharacterIsRefused() {
    String staticPod =
        valid()
            .replace(
                "{kind: systemd, unit: etcd@prod-1.service}",
                "{kind: static-pod, manifestPath: \"/etc/kubernetes/manifests/etcd\\r.yaml\"}");
    assertThatThrownBy(() -> prod(staticPod))
        .hasMessageContaining(
            "cluster 'prod': service.manifestPath must not contain control characters, got"
                + " '/etc/kubernetes/manifests/etcd\\r.yaml'");
  }

  private static String valid() {
    return with("", "");
  }

  /** The inventory with one placeholder set to value and every other to a valid absolute path. */
  private static String with(String field, String value) {
    return (field.isEmpty() ? INVENTORY : INVENTORY.replace(field, value))
        .replace("LOCAL_DIR", "/var/lib/etcd-runbooks/releases")
        .replace("DOWNLOAD_DIR", "/var/lib/etcd-runbooks/downloads")
        .replace("KEY_FILE", "/etc/etcd-runbooks/ssh/id_ed25519")
        .replace("KNOWN_HOSTS", "/etc/etcd-runbooks/ssh/known_hosts")
        .replace("CA_FILE", "/etc/etcd-runbooks/tls/ca.crt")
        .replace("CERT_FILE", "/etc/etcd-runbooks/tls/client.crt")
        .replace("TLS_KEY", "/etc/etcd-runbooks/tls/client.key")
        .replace("UNIT", "etcd@prod-1.service")
        .replace("BACKUP_DIR", "/var/backups/etcd/prod")
        .replace("BACKUP_KEY", "/etc/etcd-runbooks/backup-keys/prod.key")
        .replace("DATA_DIR", "/var/lib/etcd")
        .replace("INSTALL_DIR", "/opt/etcd")
        .replace("SERVICE_DIR", "/etc/etcd")
        .replace("MANIFEST_PATH", "/etc/kubernetes/manifests/kube-apiserver.yaml");
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
