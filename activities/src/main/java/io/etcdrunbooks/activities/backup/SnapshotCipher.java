package io.etcdrunbooks.activities.backup;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;

/**
 * Encrypts snapshots with AES-256-GCM as a stream of authenticated chunks, so memory stays at two
 * chunks whatever the snapshot's size.
 *
 * <pre>
 * header:  "ERBK" | version (1) | key id length (1) | key id (UTF-8) | key check (16) | nonce prefix (8) | chunk size (4)
 * chunk i: final flag (1) | plaintext length (4) | AES-GCM ciphertext and 16-byte tag
 *          nonce = nonce prefix | i (4, big-endian); associated data = header | i (8) | final flag | plaintext length
 * </pre>
 *
 * Every chunk's tag covers the whole header and the chunk's position, and only the last chunk
 * carries the final flag: a modified header, a modified, reordered, dropped or repeated chunk, a
 * cut after any chunk and bytes appended after the last one are all refused. The key check (derived
 * from the key, see {@link BackupKey}) tells a wrong key from a damaged file. Decrypted chunks are
 * written as soon as they are authenticated, so a failed decryption leaves partial output that the
 * caller must discard.
 */
public final class SnapshotCipher {

  /**
   * 64 KiB: the JDK 17 runs AES-GCM on a large buffer slowly until its JIT has compiled the loop
   * (measured here: 1 GiB in 1 MiB chunks encrypted and decrypted in 17 s on a fresh JVM, 2 s once
   * warm; in 64 KiB chunks 6.5 s fresh, 0.9 s warm). A backup runs once in a long-running worker,
   * so it always meets the cold case. The header carries the size: 1 MiB backups still decrypt.
   */
  public static final int DEFAULT_CHUNK_SIZE = 64 << 10;

  private static final int MAX_CHUNK_SIZE = 16 << 20;
  private static final byte[] MAGIC = "ERBK".getBytes(StandardCharsets.US_ASCII);
  private static final int VERSION = 1;
  private static final int TAG_BYTES = 16;
  private static final int CHECK_BYTES = 16;
  private static final int NONCE_PREFIX_BYTES = 8;
  private static final byte MORE = 0;
  private static final byte FINAL = 1;
  private static final SecureRandom RANDOM = new SecureRandom();

  private final BackupKey key;
  private final int chunkSize;

  public SnapshotCipher(BackupKey key) {
    this(key, DEFAULT_CHUNK_SIZE);
  }

  SnapshotCipher(BackupKey key, int chunkSize) {
    if (chunkSize < 1 || chunkSize > MAX_CHUNK_SIZE)
      throw new IllegalArgumentException("chunk size " + chunkSize + " out of range");
    this.key = key;
    this.chunkSize = chunkSize;
  }

  /** Writes the encrypted form of everything {@code plaintext} holds; closes neither stream. */
  public void encrypt(InputStream plaintext, OutputStream ciphertext) throws IOException {
    byte[] noncePrefix = new byte[NONCE_PREFIX_BYTES];
    RANDOM.nextBytes(noncePrefix);
    byte[] header = header(key.id(), key.check(), noncePrefix, chunkSize);
    ciphertext.write(header);
    Cipher cipher = cipher();
    byte[] current = new byte[chunkSize];
    byte[] next = new byte[chunkSize];
    byte[] sealed = new byte[chunkSize + TAG_BYTES];
    int currentLength = plaintext.readNBytes(current, 0, chunkSize);
    for (long index = 0; ; index++) {
      int nextLength = currentLength == chunkSize ? plaintext.readNBytes(next, 0, chunkSize) : 0;
      byte flag = nextLength == 0 ? FINAL : MORE;
      try {
        cipher.init(
            Cipher.ENCRYPT_MODE,
            key.encryptionKey(),
            new GCMParameterSpec(TAG_BYTES * 8, nonce(noncePrefix, index)));
        cipher.updateAAD(associatedData(header, index, flag, currentLength));
        int sealedLength = cipher.doFinal(current, 0, currentLength, sealed, 0);
        ciphertext.write(flag);
        ciphertext.write(ByteBuffer.allocate(4).putInt(currentLength).array());
        ciphertext.write(sealed, 0, sealedLength);
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException(
            "AES-GCM failed on chunk " + index + ": " + e.getMessage(), e);
      }
      if (flag == FINAL) break;
      byte[] swap = current;
      current = next;
      next = swap;
      currentLength = nextLength;
    }
    Arrays.fill(current, (byte) 0);
    Arrays.fill(next, (byte) 0);
  }

  /**
   * Writes the plaintext of an encrypted stream; throws {@link SnapshotDecryptionException} naming
   * what is wrong (wrong key or key id, modified, reordered or truncated chunks). Closes neither
   * stream.
   */
  public void decrypt(InputStream ciphertext, OutputStream plaintext) throws IOException {
    Header header = readHeader(ciphertext);
    if (!header.keyId().equals(key.id())) {
      throw new SnapshotDecryptionException(
          "the backup was encrypted with key id '"
              + header.keyId()
              + "', not with key '"
              + key.id()
              + "'");
    }
    if (!MessageDigest.isEqual(header.check(), key.check())) {
      throw new SnapshotDecryptionException(
          "wrong key: the key given as '"
              + key.id()
              + "' is not the key this backup was encrypted with");
    }
    Cipher cipher = cipher();
    byte[] sealed = new byte[header.chunkSize() + TAG_BYTES];
    byte[] opened = new byte[header.chunkSize()];
    for (long index = 0; ; index++) {
      int flag = ciphertext.read();
      if (flag < 0) {
        throw new SnapshotDecryptionException(
            "truncated: the backup ends after " + index + " chunks without its final chunk");
      }
      byte[] lengthBytes = ciphertext.readNBytes(4);
      if (lengthBytes.length < 4)
        throw new SnapshotDecryptionException("truncated inside chunk " + index);
      int length = ByteBuffer.wrap(lengthBytes).getInt();
      if ((flag != MORE && flag != FINAL)
          || length < 0
          || length > header.chunkSize()
          || (flag == MORE && length != header.chunkSize())) {
        throw new SnapshotDecryptionException(
            "chunk " + index + " has a damaged frame (flag " + flag + ", length " + length + ")");
      }
      int sealedLength = length + TAG_BYTES;
      if (ciphertext.readNBytes(sealed, 0, sealedLength) < sealedLength) {
        throw new SnapshotDecryptionException("truncated inside chunk " + index);
      }
      try {
        cipher.init(
            Cipher.DECRYPT_MODE,
            key.encryptionKey(),
            new GCMParameterSpec(TAG_BYTES * 8, nonce(header.noncePrefix(), index)));
        cipher.updateAAD(associatedData(header.bytes(), index, (byte) flag, length));
        int openedLength = cipher.doFinal(sealed, 0, sealedLength, opened, 0);
        plaintext.write(opened, 0, openedLength);
      } catch (AEADBadTagException e) {
        throw new SnapshotDecryptionException(
            "chunk "
                + index
                + " failed authentication: the backup was modified, or its chunks were"
                + " reordered, dropped or repeated");
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException(
            "AES-GCM failed on chunk " + index + ": " + e.getMessage(), e);
      }
      if (flag == FINAL) {
        if (ciphertext.read() >= 0)
          throw new SnapshotDecryptionException(
              "the backup has data after its final chunk " + index);
        Arrays.fill(opened, (byte) 0);
        return;
      }
    }
  }

  /** The key id an encrypted backup names in its header, so the right key can be looked up. */
  public static String keyIdOf(InputStream ciphertext) throws IOException {
    return readHeader(ciphertext).keyId();
  }

  private record Header(
      byte[] bytes, String keyId, byte[] check, byte[] noncePrefix, int chunkSize) {}

  private static Header readHeader(InputStream in) throws IOException {
    byte[] fixed = in.readNBytes(MAGIC.length + 2);
    if (fixed.length < MAGIC.length + 2
        || !Arrays.equals(Arrays.copyOf(fixed, MAGIC.length), MAGIC)) {
      throw new SnapshotDecryptionException(
          "not an encrypted etcd-runbooks backup (no ERBK header)");
    }
    if (fixed[MAGIC.length] != VERSION) {
      throw new SnapshotDecryptionException(
          "encrypted backup format version "
              + fixed[MAGIC.length]
              + " is not supported (only "
              + VERSION
              + ")");
    }
    int idLength = fixed[MAGIC.length + 1] & 0xff;
    byte[] rest = in.readNBytes(idLength + CHECK_BYTES + NONCE_PREFIX_BYTES + 4);
    if (rest.length < idLength + CHECK_BYTES + NONCE_PREFIX_BYTES + 4)
      throw new SnapshotDecryptionException("truncated inside the header");
    ByteBuffer b = ByteBuffer.wrap(rest);
    byte[] id = new byte[idLength];
    byte[] check = new byte[CHECK_BYTES];
    byte[] prefix = new byte[NONCE_PREFIX_BYTES];
    b.get(id).get(check).get(prefix);
    int chunkSize = b.getInt();
    if (chunkSize < 1 || chunkSize > MAX_CHUNK_SIZE)
      throw new SnapshotDecryptionException("the header's chunk size " + chunkSize + " is damaged");
    byte[] all = new byte[fixed.length + rest.length];
    System.arraycopy(fixed, 0, all, 0, fixed.length);
    System.arraycopy(rest, 0, all, fixed.length, rest.length);
    return new Header(all, new String(id, StandardCharsets.UTF_8), check, prefix, chunkSize);
  }

  private static byte[] header(String keyId, byte[] check, byte[] noncePrefix, int chunkSize)
      throws IOException {
    byte[] id = keyId.getBytes(StandardCharsets.UTF_8);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.write(MAGIC);
    out.writeByte(VERSION);
    out.writeByte(id.length);
    out.write(id);
    out.write(check);
    out.write(noncePrefix);
    out.writeInt(chunkSize);
    return bytes.toByteArray();
  }

  private static byte[] nonce(byte[] prefix, long index) {
    if (index > 0xffffffffL) throw new IllegalStateException("more than 2^32 chunks in one backup");
    return ByteBuffer.allocate(12).put(prefix).putInt((int) index).array();
  }

  private static byte[] associatedData(byte[] header, long index, byte flag, int length) {
    return ByteBuffer.allocate(header.length + 8 + 1 + 4)
        .put(header)
        .putLong(index)
        .put(flag)
        .putInt(length)
        .array();
  }

  private static Cipher cipher() {
    try {
      return Cipher.getInstance("AES/GCM/NoPadding");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES/GCM/NoPadding is unavailable", e);
    }
  }
}
