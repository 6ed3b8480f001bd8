package io.etcdrunbooks.activities.backup;

import io.etcdrunbooks.secrets.SecretFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Base64;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A 256-bit backup encryption key and the id it is known by. The key file holds the key
 * base64-encoded (as {@code openssl rand -base64 32} prints it) and is a secret file ({@link
 * SecretFiles}: mode 0600 or 0400). Neither {@link #toString()} nor any message of this class shows
 * key material.
 */
public final class BackupKey {

  public static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
  private static final int KEY_BYTES = 32;

  private final String id;
  private final SecretKeySpec encryptionKey;
  private final byte[] check;

  private BackupKey(String id, byte[] key) {
    if (id == null || !ID.matcher(id).matches()) {
      throw new IllegalArgumentException(
          "backup key id '" + id + "' must be 1-64 letters, digits, '.', '_' or '-'");
    }
    if (key.length != KEY_BYTES) {
      throw new IllegalArgumentException(
          "backup key '" + id + "' must be " + KEY_BYTES + " bytes, not " + key.length);
    }
    this.id = id;
    // Separate subkeys for encryption and for the key check, so the check value says nothing about
    // the cipher key.
    this.encryptionKey =
        new SecretKeySpec(derive(key, "etcd-runbooks backup encryption v1"), "AES");
    this.check = Arrays.copyOf(derive(key, "etcd-runbooks backup key check v1"), 16);
  }

  public static BackupKey of(String id, byte[] key) {
    return new BackupKey(id, key.clone());
  }

  /** Reads a key file; failures name the file and what is wrong with it, never its contents. */
  public static BackupKey read(Path file, String id) throws IOException {
    if (!Files.isRegularFile(file))
      throw new IOException("backup key file " + file + " does not exist or is not a regular file");
    byte[] text = SecretFiles.readAllBytes("backup key file", file);
    byte[] key;
    try {
      key = Base64.getDecoder().decode(new String(text, StandardCharsets.US_ASCII).strip());
    } catch (IllegalArgumentException e) {
      throw new IOException(
          "backup key file "
              + file
              + " does not hold base64 text (create one with: openssl rand -base64 32)");
    } finally {
      Arrays.fill(text, (byte) 0);
    }
    try {
      if (key.length != KEY_BYTES) {
        throw new IOException(
            "backup key file "
                + file
                + " holds "
                + key.length
                + " bytes, not "
                + KEY_BYTES
                + " (create one with: openssl rand -base64 32)");
      }
      return new BackupKey(id, key);
    } finally {
      Arrays.fill(key, (byte) 0);
    }
  }

  public String id() {
    return id;
  }

  SecretKeySpec encryptionKey() {
    return encryptionKey;
  }

  /**
   * A value derived from the key that tells a wrong key from a modified file without revealing the
   * key.
   */
  byte[] check() {
    return check.clone();
  }

  @Override
  public String toString() {
    return "BackupKey[" + id + "]";
  }

  private static byte[] derive(byte[] key, String purpose) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return mac.doFinal(purpose.getBytes(StandardCharsets.US_ASCII));
    } catch (NoSuchAlgorithmException | InvalidKeyException e) {
      throw new IllegalStateException("HmacSHA256 is unavailable", e);
    }
  }
}
