package io.etcdrunbooks.activities.backup;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Turns an encrypted backup back into the snapshot file etcd restores from (for restores by hand).
 */
public final class BackupDecryption {

  private BackupDecryption() {}

  /**
   * Decrypts {@code encrypted} into {@code snapshot} (mode 0600). Nothing is left at {@code
   * snapshot} when the key is wrong or the file is damaged; the exception says which.
   */
  public static void decrypt(Path encrypted, Path snapshot, Path keyFile, String keyId)
      throws IOException {
    BackupKey key = BackupKey.read(keyFile, keyId);
    if (Files.exists(snapshot))
      throw new IOException(snapshot + " exists already; choose a new file to decrypt into");
    Path part = snapshot.resolveSibling(snapshot.getFileName() + ".part");
    Files.deleteIfExists(part);
    Files.createFile(
        part, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    try {
      try (InputStream in = new BufferedInputStream(Files.newInputStream(encrypted));
          OutputStream out = new BufferedOutputStream(Files.newOutputStream(part))) {
        new SnapshotCipher(key).decrypt(in, out);
      }
      Files.move(part, snapshot, StandardCopyOption.ATOMIC_MOVE);
    } finally {
      Files.deleteIfExists(part);
    }
  }
}
