package io.etcdrunbooks.inventory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The inventory file itself as the store, for installs whose workers share one file system. A write
 * holds an OS lock on a lock file beside the inventory ({@code .<name>.lock}), so workers in other
 * processes wait for it; it checks the version (the SHA-256 of the file's bytes) under that lock,
 * writes a temporary file of a unique name in the same directory, syncs it, keeps the file as it
 * was as {@code <name>.previous} and renames the new one into place. Readers take no lock: a rename
 * shows them the old file or the new one.
 */
public final class FileInventoryStore implements InventoryStore {

  /** The OS lock is per process: threads of one JVM must also wait for each other. */
  private static final Map<Path, ReentrantLock> IN_PROCESS = new ConcurrentHashMap<>();

  private final Path file;
  private final Path lockFile;

  public FileInventoryStore(Path file) {
    this.file = file.toAbsolutePath().normalize();
    this.lockFile = this.file.resolveSibling("." + this.file.getFileName() + ".lock");
  }

  @Override
  public Versioned read() {
    byte[] bytes = bytes();
    return new Versioned(new String(bytes, StandardCharsets.UTF_8), version(bytes));
  }

  @Override
  public boolean writeIfUnchanged(String version, String content) {
    ReentrantLock local = IN_PROCESS.computeIfAbsent(file, f -> new ReentrantLock());
    local.lock();
    try (FileChannel channel =
        FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      // held until the channel closes; released by the OS should this process die
      channel.lock();
      byte[] current = bytes();
      if (!version(current).equals(version)) return false;
      // the directory sync after the next rename makes this one durable too
      AtomicFiles.keepAs(file, file.resolveSibling(file.getFileName() + ".previous"), current);
      AtomicFiles.replace(file, content.getBytes(StandardCharsets.UTF_8));
      return true;
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot write the inventory " + file + ": " + e.getMessage(), e);
    } finally {
      local.unlock();
    }
  }

  @Override
  public void checkWritable() {
    Path dir = file.getParent();
    boolean lockable = Files.exists(lockFile) ? Files.isWritable(lockFile) : Files.isWritable(dir);
    if (!Files.isWritable(file) || !Files.isWritable(dir) || !lockable) {
      throw new IllegalStateException(
          "the inventory "
              + file
              + " (or its directory) is not writable by the worker, and the new membership must be"
              + " recorded there. Make it writable (for example a volume rather than a read-only"
              + " ConfigMap mount), then run again");
    }
  }

  @Override
  public String location() {
    return file.toString();
  }

  private byte[] bytes() {
    try {
      return Files.readAllBytes(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read inventory " + file + ": " + e.getMessage(), e);
    }
  }

  static String version(byte[] content) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }
}
