package io.etcdrunbooks.activities.backup;

import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.inventory.BackupSpec;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.workflows.model.BackupRecord;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When the newest verified backup of a cluster was taken, on each target it has: the worker's
 * backup directory ({@value #LOCAL}: a record whose file has its recorded size), the off-site host
 * ({@value #OFFSITE}: a record copied there, which follows the file's SHA-256 check) and the object
 * store ({@value #OBJECT_STORE}: a record uploaded there, which follows the file's check). A target
 * that cannot be read is left out, and the log says why.
 */
public final class NewestBackups {

  public static final String LOCAL = "local";
  public static final String OFFSITE = "offsite";
  public static final String OBJECT_STORE = "object_store";

  private static final Logger log = LoggerFactory.getLogger(NewestBackups.class);

  private final OffsiteCopy offsite;
  private final ObjectStoreCopy objectStore =
      new ObjectStoreCopy(ObjectStoreCopy.DEFAULT_PART_SIZE);

  /**
   * @param ssh the SSH client off-site hosts are listed with (null: off-site copies are not read)
   */
  public NewestBackups(SshConnector ssh) {
    this.offsite = ssh == null ? null : new OffsiteCopy(ssh);
  }

  /** Target -> time the newest verified backup there was taken; targets without one are absent. */
  public Map<String, Instant> of(ClusterSpec spec) {
    Map<String, Instant> newest = new LinkedHashMap<>();
    BackupSpec settings = spec.backupSettings();
    read(spec, LOCAL, () -> local(spec)).ifPresent(t -> newest.put(LOCAL, t));
    if (settings.copyTo() != null && offsite != null)
      read(spec, OFFSITE, () -> offsite.newestVerifiedTakenAt(spec))
          .ifPresent(t -> newest.put(OFFSITE, t));
    if (settings.objectStore() != null)
      read(spec, OBJECT_STORE, () -> objectStore.newestVerifiedTakenAt(spec))
          .ifPresent(t -> newest.put(OBJECT_STORE, t));
    return newest;
  }

  private interface Reader {
    Optional<Instant> read() throws IOException;
  }

  private static Optional<Instant> read(ClusterSpec spec, String target, Reader reader) {
    try {
      return reader.read();
    } catch (IOException | RuntimeException e) {
      log.info("backups of cluster {} on {} not read: {}", spec.name(), target, e.getMessage());
      return Optional.empty();
    }
  }

  private static Optional<Instant> local(ClusterSpec spec) throws IOException {
    Path dir = Path.of(spec.backupDir());
    Optional<Instant> newest = Optional.empty();
    for (BackupRecord r : StoredBackups.keptRecords(spec, dir).values()) {
      Path file = StoredBackups.storedFile(dir, r);
      if (!Files.isRegularFile(file) || Files.size(file) != r.sizeBytes()) continue;
      Instant taken = Instant.parse(r.takenAt());
      if (newest.isEmpty() || taken.isAfter(newest.get())) newest = Optional.of(taken);
    }
    return newest;
  }
}
