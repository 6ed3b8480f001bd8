package io.etcdrunbooks.activities.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.secrets.SecretFiles;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SnapshotCipherTest {

  private static final int CHUNK = 64 * 1024;
  private static final int HEADER = 4 + 1 + 1 + "k1".length() + 16 + 8 + 4;
  private static final int RECORD = 1 + 4 + CHUNK + 16;

  private final BackupKey key = BackupKey.of("k1", randomBytes(32, 1));
  private final SnapshotCipher cipher = new SnapshotCipher(key, CHUNK);

  @TempDir Path dir;

  @Test
  void encryptThenDecryptOfAMultiMegabyteStreamGivesBackEveryByte() throws Exception {
    long size = 24L * 1024 * 1024 + 12_345;
    MessageDigest in = MessageDigest.getInstance("SHA-256");
    MessageDigest out = MessageDigest.getInstance("SHA-256");
    Path encrypted = dir.resolve("big.enc");
    try (OutputStream file = Files.newOutputStream(encrypted)) {
      new SnapshotCipher(key).encrypt(new PatternStream(size, in), file);
    }
    CountingDigestSink sink = new CountingDigestSink(out);
    try (InputStream file = Files.newInputStream(encrypted)) {
      new SnapshotCipher(key).decrypt(file, sink);
    }

    assertThat(sink.count).isEqualTo(size);
    assertThat(out.digest()).isEqualTo(in.digest());
    // per chunk: flag (1), length (4), tag (16); the header is under 300 bytes
    long chunks = size / SnapshotCipher.DEFAULT_CHUNK_SIZE + 1;
    assertThat(Files.size(encrypted)).isBetween(size, size + chunks * 21 + 300);
  }

  @Test
  void backupsWrittenInTheEarlierOneMebibyteChunksStillDecrypt() throws Exception {
    byte[] plain = randomBytes(3 * (1 << 20) + 7, 7);
    byte[] oldFormat = encrypt(new SnapshotCipher(key, 1 << 20), plain);

    assertThat(decrypt(new SnapshotCipher(key), oldFormat)).isEqualTo(plain);
  }

  @Test
  void encryptThenDecryptOfEmptyAndExactChunkMultiplesRoundTrips() throws Exception {
    for (int size : new int[] {0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK}) {
      byte[] plain = randomBytes(size, size);
      assertThat(decrypt(cipher, encrypt(plain))).as("size %d", size).isEqualTo(plain);
    }
  }

  @Test
  void encryptTwiceGivesDifferentCiphertextsAndNoPlaintext() throws Exception {
    byte[] plain =
        ("/registry/secrets/default/db-password " + "s3cr3t-value ".repeat(1000)).getBytes();
    byte[] first = encrypt(plain);

    assertThat(first).isNotEqualTo(encrypt(plain));
    assertThat(indexOf(first, "s3cr3t".getBytes())).isEqualTo(-1);
    assertThat(indexOf(first, "/registry".getBytes())).isEqualTo(-1);
  }

  @Test
  void decryptWithAnotherKeyUnderTheSameIdIsRefusedAsWrongKey() throws Exception {
    byte[] sealed = encrypt(randomBytes(3 * CHUNK, 2));
    SnapshotCipher other = new SnapshotCipher(BackupKey.of("k1", randomBytes(32, 99)), CHUNK);

    assertThatThrownBy(() -> decrypt(other, sealed))
        .isInstanceOf(SnapshotDecryptionException.class)
        .hasMessageContaining("wrong key");
  }

  @Test
  void decryptWithAKeyOfAnotherIdNamesBothIds() throws Exception {
    byte[] sealed = encrypt(randomBytes(100, 3));
    SnapshotCipher other = new SnapshotCipher(BackupKey.of("k2", randomBytes(32, 1)), CHUNK);

    assertThatThrownBy(() -> decrypt(other, sealed))
        .isInstanceOf(SnapshotDecryptionException.class)
        .hasMessageContaining("key id 'k1'")
        .hasMessageContaining("'k2'");
  }

  @Test
  void decryptOfATruncatedBackupIsRefused() throws Exception {
    byte[] sealed = encrypt(randomBytes(3 * CHUNK + 10, 4));
    int[] cuts = {
      HEADER - 3,
      HEADER,
      HEADER + RECORD,
      HEADER + 2 * RECORD,
      HEADER + 3 * RECORD + 5,
      sealed.length - 1
    };
    for (int cut : cuts) {
      assertThatThrownBy(() -> decrypt(cipher, Arrays.copyOf(sealed, cut)))
          .as("cut at %d", cut)
          .isInstanceOf(SnapshotDecryptionException.class)
          .hasMessageContaining("truncated");
    }
  }

  @Test
  void decryptOfABackupWithOneFlippedByteIsRefusedWhereverTheByteIs() throws Exception {
    byte[] sealed = encrypt(randomBytes(2 * CHUNK + 100, 5));
    for (int at :
        new int[] {
          HEADER - 1, HEADER + 2, HEADER + 5 + 17, HEADER + RECORD + 1000, sealed.length - 1
        }) {
      byte[] damaged = sealed.clone();
      damaged[at] ^= 0x01;
      assertThatThrownBy(() -> decrypt(cipher, damaged))
          .as("flipped byte %d", at)
          .isInstanceOf(SnapshotDecryptionException.class);
    }
  }

  @Test
  void decryptWithTwoChunksSwappedIsRefused() throws Exception {
    byte[] sealed = encrypt(randomBytes(3 * CHUNK + 7, 6));
    byte[] swapped = sealed.clone();
    System.arraycopy(sealed, HEADER + RECORD, swapped, HEADER, RECORD);
    System.arraycopy(sealed, HEADER, swapped, HEADER + RECORD, RECORD);

    assertThatThrownBy(() -> decrypt(cipher, swapped))
        .isInstanceOf(SnapshotDecryptionException.class)
        .hasMessageContaining("chunk 0 failed authentication");
  }

  @Test
  void decryptWithTheFinalChunkDroppedOrDataAppendedIsRefused() throws Exception {
    byte[] sealed = encrypt(randomBytes(2 * CHUNK + 7, 7));
    byte[] appended = Arrays.copyOf(sealed, sealed.length + 3);

    assertThatThrownBy(() -> decrypt(cipher, Arrays.copyOf(sealed, HEADER + 2 * RECORD)))
        .isInstanceOf(SnapshotDecryptionException.class)
        .hasMessageContaining("without its final chunk");
    assertThatThrownBy(() -> decrypt(cipher, appended))
        .isInstanceOf(SnapshotDecryptionException.class)
        .hasMessageContaining("after its final chunk");
  }

  @Test
  void decryptOfAPlainSnapshotSaysItIsNotEncrypted() {
    assertThatThrownBy(() -> decrypt(cipher, randomBytes(5000, 8)))
        .isInstanceOf(SnapshotDecryptionException.class)
        .hasMessageContaining("not an encrypted");
  }

  @Test
  void keyFileIsReadFromBase64AndRefusedWhenOpenToOthersOrMalformedWithoutShowingItsContents()
      throws Exception {
    String secret = Base64.getEncoder().encodeToString(randomBytes(32, 9));
    Path good = keyFile("good.key", secret + "\n", "rw-------");
    BackupKey read = BackupKey.read(good, "prod-2026");
    ByteArrayOutputStream sealed = new ByteArrayOutputStream();
    new SnapshotCipher(read, CHUNK).encrypt(new ByteArrayInputStream(new byte[] {1, 2, 3}), sealed);

    assertThat(read.toString()).doesNotContain(secret);
    assertThat(
            decrypt(
                new SnapshotCipher(BackupKey.read(good, "prod-2026"), CHUNK), sealed.toByteArray()))
        .containsExactly(1, 2, 3);
    assertThatThrownBy(() -> BackupKey.read(keyFile("open.key", secret, "rw-r--r--"), "k"))
        .hasMessageContaining("chmod 600")
        .hasMessageNotContaining(secret);
    assertThatThrownBy(() -> BackupKey.read(keyFile("short.key", "c2hvcnQ=", "rw-------"), "k"))
        .hasMessageContaining("not 32")
        .hasMessageNotContaining("c2hvcnQ");
    assertThatThrownBy(
            () -> BackupKey.read(keyFile("text.key", "not base64 at all!", "rw-------"), "k"))
        .hasMessageContaining("base64")
        .hasMessageNotContaining("at all");
    assertThatThrownBy(() -> BackupKey.read(dir.resolve("missing.key"), "k"))
        .hasMessageContaining("does not exist");
  }

  @Test
  void keyFileFollowsTheSecretFileRuleOwnerOnly() throws Exception {
    String secret = Base64.getEncoder().encodeToString(randomBytes(32, 13));
    for (String[] open :
        new String[][] {
          {"rw-r-----", "0640", "its group may read it"},
          {"rw----r--", "0604", "others may read it"},
          {"rw-r--r--", "0644", "its group may read it and others may read it"}
        }) {
      Path file = keyFile("open-" + open[1] + ".key", secret, open[0]);
      assertThatThrownBy(() -> BackupKey.read(file, "k"))
          .as(open[0])
          .isInstanceOf(SecretFiles.Refused.class)
          .hasMessage(
              "backup key file "
                  + file
                  + " has mode "
                  + open[1]
                  + ": "
                  + open[2]
                  + "; a secret file must be for its owner only (0600 or 0400): chmod 600 "
                  + file)
          .hasMessageNotContaining(secret);
    }
    assertThat(BackupKey.read(keyFile("owner-only.key", secret, "rw-------"), "k").id())
        .isEqualTo("k");
    assertThat(BackupKey.read(keyFile("read-only.key", secret, "r--------"), "k").id())
        .isEqualTo("k");
  }

  @Test
  void backupDecryptionWritesTheSnapshotAndNothingWhenTheKeyIsWrong() throws Exception {
    Path keyFile =
        keyFile("k.key", Base64.getEncoder().encodeToString(randomBytes(32, 10)), "rw-------");
    Path otherKey =
        keyFile("other.key", Base64.getEncoder().encodeToString(randomBytes(32, 11)), "rw-------");
    byte[] plain = randomBytes(3 * CHUNK + 5, 12);
    Path encrypted = dir.resolve("b.db.enc");
    try (OutputStream out = Files.newOutputStream(encrypted)) {
      new SnapshotCipher(BackupKey.read(keyFile, "k"))
          .encrypt(new ByteArrayInputStream(plain), out);
    }

    assertThatThrownBy(
            () -> BackupDecryption.decrypt(encrypted, dir.resolve("wrong.db"), otherKey, "k"))
        .hasMessageContaining("wrong key");
    BackupDecryption.decrypt(encrypted, dir.resolve("b.db"), keyFile, "k");

    assertThat(dir.resolve("wrong.db")).doesNotExist();
    assertThat(dir.resolve("wrong.db.part")).doesNotExist();
    assertThat(Files.readAllBytes(dir.resolve("b.db"))).isEqualTo(plain);
    assertThat(Files.getPosixFilePermissions(dir.resolve("b.db")))
        .isEqualTo(PosixFilePermissions.fromString("rw-------"));
  }

  private Path keyFile(String name, String content, String permissions) throws IOException {
    Path file =
        Files.createFile(
            dir.resolve(name),
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(file, content);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(permissions));
    return file;
  }

  private byte[] encrypt(byte[] plain) throws IOException {
    return encrypt(cipher, plain);
  }

  private static byte[] encrypt(SnapshotCipher with, byte[] plain) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    with.encrypt(new ByteArrayInputStream(plain), out);
    return out.toByteArray();
  }

  private static byte[] decrypt(SnapshotCipher with, byte[] sealed) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    with.decrypt(new ByteArrayInputStream(sealed), out);
    return out.toByteArray();
  }

  private static byte[] randomBytes(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) if (haystack[i + j] != needle[j]) continue outer;
      return i;
    }
    return -1;
  }

  /** Random-looking bytes generated on the fly, so the test holds no more than a buffer of them. */
  private static final class PatternStream extends InputStream {
    private final Random random = new SecureRandom();
    private final MessageDigest digest;
    private long remaining;

    PatternStream(long size, MessageDigest digest) {
      this.remaining = size;
      this.digest = digest;
    }

    @Override
    public int read() {
      byte[] one = new byte[1];
      return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) {
      if (remaining == 0) return -1;
      int n = (int) Math.min(len, Math.min(remaining, 7919));
      byte[] chunk = new byte[n];
      random.nextBytes(chunk);
      System.arraycopy(chunk, 0, b, off, n);
      digest.update(chunk);
      remaining -= n;
      return n;
    }
  }

  private static final class CountingDigestSink extends OutputStream {
    private final MessageDigest digest;
    long count;

    CountingDigestSink(MessageDigest digest) {
      this.digest = digest;
    }

    @Override
    public void write(int b) {
      write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) {
      digest.update(b, off, len);
      count += len;
    }
  }
}
