package io.etcdrunbooks.inventory;

import io.etcdrunbooks.workflows.inventory.InventoryRecord;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The inventory file, read again whenever it changes on disk, so runbooks always see the current
 * membership. Each cluster it refuses is logged once per change of the file. With a store of the
 * runbooks' records ({@link InventoryRecords}), each cluster is the operator's entry with its
 * record over it, and the file is never written.
 */
public final class InventorySource implements Supplier<Inventory> {

  private static final Logger LOG = LoggerFactory.getLogger(InventorySource.class);

  /** How long a record read from the store serves before it is read again. */
  public static final Duration RECORD_MAX_AGE = Duration.ofSeconds(2);

  private final Path file;
  private final RecordOverlay records;
  private FileState loadedAt;
  private Inventory inventory;

  /** The file alone: runbooks record their changes in it. */
  public InventorySource(Path file) {
    this.file = file;
    this.records = null;
  }

  /**
   * The file, read-only, with the runbooks' records over it.
   *
   * @param maxAge how long a record read from the store serves ({@link #RECORD_MAX_AGE})
   */
  public InventorySource(Path file, InventoryRecords records, Duration maxAge) {
    this.file = file;
    this.records = new RecordOverlay(records, maxAge);
  }

  public Path file() {
    return file;
  }

  /** Where runbooks record their changes apart from the file, if they do. */
  public Optional<InventoryRecords> records() {
    return records == null ? Optional.empty() : Optional.of(records.records());
  }

  /** A change this process recorded in {@link #records()}: its next read sees it at once. */
  public void recorded(String cluster, InventoryRecord record) {
    if (records != null) records.recorded(cluster, record);
  }

  @Override
  public Inventory get() {
    Inventory operators = operators();
    return records == null ? operators : records.over(operators);
  }

  /** The operator's inventory file alone. */
  public synchronized Inventory operators() {
    FileState state;
    try {
      BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
      // a write renames a new file into place: its inode tells it apart even within one tick of
      // the file system's clock, which another process's write may share
      state = new FileState(attributes.lastModifiedTime(), attributes.fileKey(), attributes.size());
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot read inventory "
              + file.toAbsolutePath()
              + ": set runbooks.inventory (or ETCD_RUNBOOKS_INVENTORY) to the inventory YAML",
          e);
    }
    if (inventory == null || !state.equals(loadedAt)) {
      inventory = InventoryLoader.load(file);
      loadedAt = state;
      // once per change of the file, not at every request for the cluster
      inventory
          .invalidClusters()
          .forEach(
              (name, invalid) ->
                  LOG.warn(
                      "inventory {}: cluster '{}' is refused until its entry is fixed: {}",
                      file.toAbsolutePath(),
                      InventoryFieldRules.printable(name),
                      String.join("; ", invalid.problems())));
    }
    return inventory;
  }

  private record FileState(FileTime modified, Object fileKey, long size) {}
}
