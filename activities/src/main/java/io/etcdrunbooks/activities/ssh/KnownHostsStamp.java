package io.etcdrunbooks.activities.ssh;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * What a known_hosts file was when a session was verified against it: modification time, size and a
 * SHA-256 of its content (an edit within the file system's time granularity keeps the time, and a
 * replaced key of the same type keeps the size). A session verified against another stamp than the
 * file's current one is not reused.
 */
record KnownHostsStamp(long modifiedMillis, long size, String sha256) {

  /** A file that is not there (or not readable): its keys vouch for no host. */
  static final KnownHostsStamp ABSENT = new KnownHostsStamp(-1, -1, "");

  static KnownHostsStamp of(Path file) {
    try {
      long modified = Files.getLastModifiedTime(file).toMillis();
      byte[] content = Files.readAllBytes(file);
      return new KnownHostsStamp(
          modified,
          content.length,
          HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content)));
    } catch (NoSuchFileException e) {
      return ABSENT;
    } catch (IOException e) {
      return new KnownHostsStamp(-1, -1, "unreadable: " + e.getClass().getSimpleName());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
