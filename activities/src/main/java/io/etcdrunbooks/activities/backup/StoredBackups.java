package io.etcdrunbooks.activities.backup;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.etcdrunbooks.inventory.BackupSpec;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.model.BackupRecord;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The backups a cluster keeps in its backup directory, read and written the same way by the backup
 * and by the restore: each file's {@link BackupRecord} beside it as JSON, files private to the
 * worker's user, the key the cluster's backups are encrypted with.
 */
final class StoredBackups {

  private static final Logger log = LoggerFactory.getLogger(StoredBackups.class);

  /** Writes records; reads those of newer releases too ({@link FieldsOfNewerReleases}). */
  static final ObjectMapper JSON =
      new ObjectMapper()
          .enable(SerializationFeature.INDENT_OUTPUT)
          .addHandler(new FieldsOfNewerReleases());

  static final FileAttribute<Set<PosixFilePermission>> PRIVATE =
      PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));

  private StoredBackups() {}

  /** The cluster's backups with readable metadata, by id. */
  static Map<String, BackupRecord> keptRecords(ClusterSpec spec, Path dir) throws IOException {
    Map<String, BackupRecord> records = new LinkedHashMap<>();
    if (!Files.isDirectory(dir)) return records;
    List<Path> files;
    try (Stream<Path> list = Files.list(dir)) {
      files = list.filter(f -> f.getFileName().toString().endsWith(".json")).sorted().toList();
    }
    for (Path f : files) {
      try {
        BackupRecord r = JSON.readValue(f.toFile(), BackupRecord.class);
        if (spec.name().equals(r.cluster())
            && f.getFileName().toString().equals(r.id() + ".json")
            && r.takenAt() != null) {
          Instant.parse(r.takenAt());
          records.put(r.id(), r);
        }
      } catch (IOException | RuntimeException e) {
        log.warn(
            "retention of cluster {}: {} is not backup metadata, left alone: {}",
            spec.name(),
            f,
            e.getMessage());
      }
    }
    return records;
  }

  /** The backup's file in dir (the directory may have moved since the record was written). */
  static Path storedFile(Path dir, BackupRecord record) {
    return dir.resolve(Path.of(record.path()).getFileName());
  }

  /** The backup's file is in dir with its recorded size. */
  static boolean isWhole(Path dir, BackupRecord r) {
    Path file = storedFile(dir, r);
    try {
      return Files.isRegularFile(file) && Files.size(file) == r.sizeBytes();
    } catch (IOException e) {
      return false;
    }
  }

  static BackupKey backupKey(ClusterSpec spec) {
    BackupSpec settings = spec.backupSettings();
    if (settings.keyFile() == null
        || settings.keyFile().isBlank()
        || settings.keyId() == null
        || settings.keyId().isBlank()) {
      throw FailureType.BackupKeyUnusable.nonRetryable(
          "cluster '"
              + spec.name()
              + "' has no backup key: backups are encrypted because"
              + " snapshots hold every Kubernetes Secret. Set backup.keyFile and backup.keyId in the inventory (see docs/configuration.md),"
              + " or write backup.encrypt: false to store them unencrypted");
    }
    try {
      return BackupKey.read(Path.of(settings.keyFile()), settings.keyId());
    } catch (IOException | IllegalArgumentException e) {
      throw FailureType.BackupKeyUnusable.nonRetryable(
          "cluster '" + spec.name() + "': " + e.getMessage());
    }
  }

  static String sha256(Path file) throws IOException {
    try {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      try (InputStream in = new DigestInputStream(Files.newInputStream(file), digest)) {
        in.transferTo(java.io.OutputStream.nullOutputStream());
      }
      return HexFormat.of().formatHex(digest.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
