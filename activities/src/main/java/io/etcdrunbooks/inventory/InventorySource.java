package io.etcdrunbooks.inventory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.function.Supplier;

/**
 * The inventory file, read again whenever it changes on disk, so runbooks always see the current
 * membership.
 */
public final class InventorySource implements Supplier<Inventory> {

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
    }
    return inventory;
  }
}
