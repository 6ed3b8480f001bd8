package io.etcdrunbooks.inventory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;
import java.util.UUID;

/** Replacing a file so that a reader, or a crash, sees the old content or the new, never a part. */
final class AtomicFiles {

  private AtomicFiles() {}

  /**
   * Writes {@code content} to a temporary file of a unique name beside {@code file} (another
   * writer's never collides with it), syncs it, renames it over {@code file} and syncs the
   * directory, so that the rename survives a crash. The file keeps its permissions.
   */
  static void replace(Path file, byte[] content) throws IOException {
    replace(file, content, true);
  }

  /**
   * As {@link #replace(Path, byte[])}; without {@code syncDirectory} the rename is durable only
   * once the directory is synced, for a caller that renames another file there next.
   */
  static void replace(Path file, byte[] content, boolean syncDirectory) throws IOException {
    Path dir = file.toAbsolutePath().getParent();
    Files.createDirectories(dir);
    Path tmp = Files.createTempFile(dir, "." + file.getFileName() + ".", ".tmp");
    try {
      permissions(file, tmp);
      try (FileChannel out = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
        ByteBuffer buffer = ByteBuffer.wrap(content);
        while (buffer.hasRemaining()) out.write(buffer);
        out.force(true);
      }
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } finally {
      Files.deleteIfExists(tmp);
    }
    if (syncDirectory) syncDirectory(dir);
  }

  /**
   * Makes {@code file}'s current content also {@code keep}'s, replacing what {@code keep} had, by a
   * second name for the same file where the file system allows it (nothing is written: the file is
   * only ever replaced, never written in place), else by a copy.
   */
  static void keepAs(Path file, Path keep, byte[] content) throws IOException {
    Path link = keep.resolveSibling("." + keep.getFileName() + "." + UUID.randomUUID() + ".link");
    try {
      Files.createLink(link, file);
      Files.move(link, keep, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException | UnsupportedOperationException e) {
      replace(keep, content, false);
    } finally {
      Files.deleteIfExists(link);
    }
  }

  /** A temporary file is created 0600; the file it replaces keeps what it had (0644 as written). */
  private static void permissions(Path file, Path tmp) throws IOException {
    try {
      Set<PosixFilePermission> wanted =
          Files.exists(file)
              ? Files.getPosixFilePermissions(file)
              : Set.of(
                  PosixFilePermission.OWNER_READ,
                  PosixFilePermission.OWNER_WRITE,
                  PosixFilePermission.GROUP_READ,
                  PosixFilePermission.OTHERS_READ);
      Files.setPosixFilePermissions(tmp, wanted);
    } catch (UnsupportedOperationException e) {
      // not a POSIX file system: it has its own defaults
    }
  }

  private static void syncDirectory(Path dir) {
    try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
      channel.force(true);
    } catch (IOException | UnsupportedOperationException e) {
      // some file systems cannot open or sync a directory: the rename is atomic there all the same
    }
  }
}
