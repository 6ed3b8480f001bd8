package io.etcdrunbooks.inventory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
  private FileTime loadedAt;
  private Inventory inventory;

  public InventorySource(Path file) {
    this.file = file;
  }

  public Path file() {
    return file;
  }

  @Override
  public synchronized Inventory get() {
    FileTime modified;
    try {
      modified = Files.getLastModifiedTime(file);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot read inventory "
              + file.toAbsolutePath()
              + ": set runbooks.inventory (or ETCD_RUNBOOKS_INVENTORY) to the inventory YAML",
          e);
    }
    if (inventory == null || !modified.equals(loadedAt)) {
      inventory = InventoryLoader.load(file);
      loadedAt = modified;
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
}
