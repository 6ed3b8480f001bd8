package io.etcdrunbooks.activities.backup;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.activities.ssh.SshException;
import io.etcdrunbooks.activities.ssh.SshTarget;
import io.etcdrunbooks.activities.targets.ClusterTargets;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.ControlPlaneHost;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.model.BackupRecord;
import io.temporal.failure.ApplicationFailure;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The kube-apiserver's EncryptionConfiguration beside the backups: Secrets encrypted at rest are
 * useless without its keys. A backup records the key names (provider and key name, never key
 * material); with backup.keepEncryptionConfig it keeps the file too, encrypted exactly as the
 * snapshot is ({@link SnapshotCipher}, docs/backup-format.md).
 */
final class EncryptionConfigs {

  static final String SUFFIX = ".encryption-config.enc";

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private EncryptionConfigs() {}

  /** The control-plane hosts that name an EncryptionConfiguration file, in inventory order. */
  static List<ControlPlaneHost> hosts(ClusterSpec spec) {
    return spec.controlPlane().stream().filter(ControlPlaneHost::namesEncryptionConfig).toList();
  }

  /**
   * The record with the key names of the first control-plane host's file that can be read, and that
   * file kept beside the backup when asked; the record as it is when no host names one.
   */
  static BackupRecord attach(
      ClusterTargets targets, ClusterSpec spec, BackupRecord record, Path dir, BackupKey key) {
    List<ControlPlaneHost> hosts = hosts(spec);
    if (hosts.isEmpty()) return record;
    SshConnector ssh = targets.ssh();
    List<String> unread = new ArrayList<>();
    for (ControlPlaneHost host : hosts) {
      String text;
      try {
        text = ssh.readFile(SshTarget.of(spec, host), host.encryptionConfigPath());
      } catch (SshException e) {
        unread.add(host.name() + ": " + e.getMessage());
        continue;
      }
      List<String> keys = keyNames(text, host);
      if (spec.backupSettings().keepsEncryptionConfig() && key != null) {
        Path kept = keep(dir.resolve(record.id() + SUFFIX), text, key);
        return record.withEncryptionConfig(keys, kept.toAbsolutePath().toString(), sha256(kept));
      }
      return record.withEncryptionConfig(keys, "", "");
    }
    throw ApplicationFailure.newFailure(
        "the kube-apiserver's EncryptionConfiguration (encryptionConfigPath) could not be read on"
            + " any control-plane host, and a backup without its key names cannot be checked"
            + " before a restore: "
            + unread,
        "EncryptionConfigUnreadable");
  }

  /**
   * "aescbc/key1" for each provider's key, "kms/name" for a KMS provider, "identity": sorted, each
   * once. Fails, naming host and file, on a file that is not an EncryptionConfiguration.
   */
  static List<String> keyNames(String yaml, ControlPlaneHost host) {
    TreeSet<String> names = new TreeSet<>();
    try {
      JsonNode root = YAML.readTree(yaml);
      if (root == null || !"EncryptionConfiguration".equals(root.path("kind").asText())) {
        throw new IllegalArgumentException("its kind is not EncryptionConfiguration");
      }
      for (JsonNode resource : root.path("resources")) {
        for (JsonNode provider : resource.path("providers")) {
          for (Map.Entry<String, JsonNode> field : provider.properties()) {
            String type = field.getKey();
            JsonNode config = field.getValue();
            if (type.equals("identity")) names.add("identity");
            else if (type.equals("kms")) names.add("kms/" + config.path("name").asText());
            else config.path("keys").forEach(k -> names.add(type + "/" + k.path("name").asText()));
          }
        }
      }
    } catch (IOException | IllegalArgumentException e) {
      throw ApplicationFailure.newNonRetryableFailure(
          "%s: %s is not a readable EncryptionConfiguration: %s"
              .formatted(host.name(), host.encryptionConfigPath(), withoutContent(e)),
          "EncryptionConfigUnreadable");
    }
    return List.copyOf(names);
  }

  /**
   * Why the file could not be read, without the parser's message: it quotes the text around the
   * error, which in this file is key material, and the failure goes into workflow history.
   */
  private static String withoutContent(Exception e) {
    if (e instanceof JsonProcessingException parse && parse.getLocation() != null) {
      return "not valid YAML at line %d, column %d"
          .formatted(parse.getLocation().getLineNr(), parse.getLocation().getColumnNr());
    }
    return e instanceof IllegalArgumentException ? e.getMessage() : "not valid YAML";
  }

  /**
   * The name of the file the backup keeps, the same on the worker and on every target ({@code
   * <id>.encryption-config.enc}); empty when it keeps none. A record naming any other file is
   * refused: only files of our own layout are copied, fetched or deleted.
   */
  static Optional<String> fileName(BackupRecord record) {
    if (record.encryptionConfigFile().isEmpty()) return Optional.empty();
    String name = record.id() + SUFFIX;
    if (!Path.of(record.encryptionConfigFile()).getFileName().toString().equals(name)) {
      throw FailureType.BackupCorrupt.nonRetryable(
          "backup %s's record names the EncryptionConfiguration file %s, not %s beside it"
              .formatted(record.id(), record.encryptionConfigFile(), name));
    }
    return Optional.of(name);
  }

  /**
   * The SHA-256 a copy of the kept file must have: the record's, or the worker's file's for a
   * record written before it was recorded.
   */
  static String expectedSha256(BackupRecord record, Path local) {
    return record.encryptionConfigSha256().isEmpty()
        ? sha256(local)
        : record.encryptionConfigSha256();
  }

  private static String sha256(Path file) {
    try {
      return StoredBackups.sha256(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  /** The file as the backup kept it, decrypted in memory (it is small). */
  static String kept(ClusterSpec spec, BackupRecord record) {
    // in the cluster's backup directory, where a backup fetched from another target lands too
    Path file = Path.of(spec.backupDir()).resolve(fileName(record).orElseThrow());
    try (InputStream in = Files.newInputStream(file)) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      new SnapshotCipher(StoredBackups.backupKey(spec)).decrypt(in, out);
      return out.toString(StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw FailureType.BackupCorrupt.nonRetryable(
          "backup %s: its EncryptionConfiguration %s cannot be read: %s"
              .formatted(record.id(), file, e.getMessage()));
    }
  }

  private static Path keep(Path file, String text, BackupKey key) {
    Path part = file.resolveSibling(file.getFileName() + ".part");
    try {
      Files.deleteIfExists(part);
      Files.createFile(part, StoredBackups.PRIVATE);
      try (InputStream in = new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8));
          OutputStream out = Files.newOutputStream(part)) {
        new SnapshotCipher(key).encrypt(in, out);
      }
      return Files.move(part, file, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot keep the EncryptionConfiguration at " + file, e);
    }
  }

  /**
   * A backup's EncryptionConfiguration its record names but the target does not hold: refused, as a
   * restore could not give the apiservers their keys back.
   */
  static ApplicationFailure missingOn(ClusterSpec spec, BackupRecord record, String where) {
    return FailureType.BackupCorrupt.nonRetryable(
        "backup %s of cluster '%s': its record names the EncryptionConfiguration %s, which is"
                .formatted(record.id(), spec.name(), where)
            + " not there; nothing was restored from it");
  }

  /**
   * A downloaded EncryptionConfiguration ({@code part}) kept as {@code kept} when its SHA-256 is
   * the record's (or the record has none: its authentication tag is checked when it is decrypted);
   * deleted and refused otherwise.
   */
  static void keepDownloaded(
      ClusterSpec spec, BackupRecord record, Path part, Path kept, String where)
      throws IOException {
    String sha256 = StoredBackups.sha256(part);
    if (!record.encryptionConfigSha256().isEmpty()
        && !sha256.equals(record.encryptionConfigSha256())) {
      Files.deleteIfExists(part);
      throw FailureType.BackupCorrupt.nonRetryable(
          "backup %s of cluster '%s': its EncryptionConfiguration %s has SHA-256 %s, its record"
                  .formatted(record.id(), spec.name(), where, sha256)
              + " says "
              + record.encryptionConfigSha256()
              + "; nothing was restored from it");
    }
    Files.move(part, kept, StandardCopyOption.ATOMIC_MOVE);
  }
}
