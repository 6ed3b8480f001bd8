package io.etcdrunbooks.activities.backup;

import io.etcdrunbooks.inventory.ClusterSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;

/**
 * The outcome of a cluster's last restore drill, kept in its backup directory ({@value #FILE}) for
 * the worker's metrics.
 *
 * @param lastSuccessAt ISO-8601 time of the last drill that passed ("" when none has)
 */
public record LastDrill(
    String cluster,
    String backupId,
    String target,
    boolean passed,
    String finishedAt,
    String lastSuccessAt) {

  /** Not {@code .json}: the backup directory's JSON files are backup records. */
  static final String FILE = "restore-drill.last";

  /** The cluster's last drill; empty when none was recorded or the file is unreadable. */
  public static Optional<LastDrill> read(ClusterSpec spec) {
    Path file = Path.of(spec.backupDir()).resolve(FILE);
    if (!Files.exists(file)) return Optional.empty();
    try {
      return Optional.of(StoredBackups.JSON.readValue(file.toFile(), LastDrill.class));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  void write(ClusterSpec spec) throws IOException {
    Path dir = Path.of(spec.backupDir());
    Files.createDirectories(dir);
    Path tmp = dir.resolve(FILE + ".tmp");
    Files.write(tmp, StoredBackups.JSON.writeValueAsBytes(this));
    Files.move(
        tmp,
        dir.resolve(FILE),
        StandardCopyOption.ATOMIC_MOVE,
        StandardCopyOption.REPLACE_EXISTING);
  }
}
