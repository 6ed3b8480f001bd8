package io.etcdrunbooks.activities.backup;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Forces a file's data to disk every {@link #EVERY} bytes while it is written. A snapshot is as
 * large as etcd's database (up to its 8 GiB quota); left in the page cache it leaves in one burst,
 * at our final fsync or at the kernel's writeback 30 s later, and etcd's WAL fsyncs on the same
 * disk wait behind all of it: seconds in which the cluster accepts no write. In small steps each
 * wait is a few tens of milliseconds. Deleting such a file is paced the same way: unlinked at once,
 * its blocks are freed (and discarded, on a disk mounted with discard) in one journal commit that
 * the WAL's fsyncs wait for (measured here: 230 ms for 1 GiB, 10 ms in 8 MiB steps).
 */
final class PacedSync {

  static final long EVERY = 8L << 20;

  interface Force {
    void force() throws IOException;
  }

  private final Force force;
  private long unsynced;

  PacedSync(FileChannel channel) {
    this(() -> channel.force(false));
  }

  PacedSync(Force force) {
    this.force = force;
  }

  void wrote(long bytes) throws IOException {
    unsynced += bytes;
    if (unsynced >= EVERY) {
      force.force();
      unsynced = 0;
    }
  }

  /**
   * Writes to the channel, forcing it to disk as it goes; the caller forces the rest and closes.
   */
  static OutputStream output(FileChannel channel) {
    PacedSync sync = new PacedSync(channel);
    return new FilterOutputStream(Channels.newOutputStream(channel)) {
      @Override
      public void write(byte[] b, int off, int len) throws IOException {
        out.write(b, off, len);
        sync.wrote(len);
      }
    };
  }

  /** Deletes the file, when there is one, after shrinking it {@link #EVERY} bytes at a time. */
  static boolean deleteIfExists(Path file) throws IOException {
    if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) return Files.deleteIfExists(file);
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
      for (long size = channel.size(); size > 0; ) {
        size = Math.max(0, size - EVERY);
        channel.truncate(size);
        channel.force(false);
      }
    } catch (NoSuchFileException gone) {
      return false;
    }
    return Files.deleteIfExists(file);
  }
}
