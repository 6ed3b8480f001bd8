package io.etcdrunbooks.inventory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The inventory file, read again whenever it changes on disk, so runbooks always see the current
 * membership. Each cluster it refuses is logged once per change of the file.
 */
public final class InventorySource implements Supplier<Inventory> {

  private static final Logger LOG = LoggerFactory.getLogger(InventorySource.class);

  private final Path file;
  private FileState loadedAt;
  private Inventory inventory;

  public InventorySource(Path file) {
    this.file = file;
  }

  public Path file() {
    return file;
  }

  @Override
  public synchronized Inventory get() {
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
