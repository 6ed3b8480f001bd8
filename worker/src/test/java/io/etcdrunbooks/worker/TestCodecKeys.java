package io.etcdrunbooks.worker;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;

/** A payload codec keys file with one new random key, mode 0600 as the product requires. */
final class TestCodecKeys {

  private TestCodecKeys() {}

  static Path write(Path file, String keyId) throws Exception {
    byte[] key = new byte[32];
    new SecureRandom().nextBytes(key);
    Files.createFile(
        file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(
        file,
        "current: %s\nkeys:\n  %s: %s\n"
            .formatted(keyId, keyId, Base64.getEncoder().encodeToString(key)));
    return file;
  }
}
