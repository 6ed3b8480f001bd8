package io.etcdrunbooks.activities.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class StreamingEncryptionTest {

  private static final Duration BOUND = Duration.ofSeconds(30);
  private static final int BUFFER = 256 << 10;

  private final BackupKey key = BackupKey.of("k1", randomBytes(32, 1));
  private final SnapshotCipher cipher = new SnapshotCipher(key);

  @Test
  void bytesWrittenInOddSizedPiecesDecryptToExactlyThoseBytes() {
    byte[] plain = randomBytes(5 * (1 << 20) + 333, 2);
    ByteArrayOutputStream sealed = new ByteArrayOutputStream();

    assertTimeoutPreemptively(
        BOUND,
        () -> {
          try (StreamingEncryption encryption = StreamingEncryption.start(cipher, sealed, BUFFER)) {
            Random sizes = new Random(3);
            for (int at = 0; at < plain.length; ) {
              int n = Math.min(plain.length - at, 1 + sizes.nextInt(100_000));
              encryption.write(plain, at, n);
              at += n;
            }
            encryption.write(7);
            encryption.finish(BOUND);
            assertThat(encryption.running()).isFalse();
          }
        });

    ByteArrayOutputStream opened = new ByteArrayOutputStream();
    assertTimeoutPreemptively(
        BOUND, () -> cipher.decrypt(new ByteArrayInputStream(sealed.toByteArray()), opened));
    byte[] expected = new byte[plain.length + 1];
    System.arraycopy(plain, 0, expected, 0, plain.length);
    expected[plain.length] = 7;
    assertThat(opened.toByteArray()).isEqualTo(expected);
  }

  @Test
  void aFailingCiphertextOutputFailsTheWriterAndFinishInsteadOfBlockingThem() {
    OutputStream diskFull =
        new OutputStream() {
          private long written;

          @Override
          public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
          }

          @Override
          public void write(byte[] b, int off, int len) throws IOException {
            written += len;
            if (written > (1 << 20)) throw new IOException("No space left on device");
          }
        };

    assertTimeoutPreemptively(
        BOUND,
        () -> {
          try (StreamingEncryption encryption =
              StreamingEncryption.start(cipher, diskFull, BUFFER)) {
            byte[] piece = randomBytes(32 << 10, 4);
            assertThatThrownBy(
                    () -> {
                      for (int i = 0; i < 1000; i++) encryption.write(piece, 0, piece.length);
                    })
                .isInstanceOf(IOException.class)
                .hasMessageContaining("encrypting the snapshot failed")
                .hasMessageContaining("No space left on device");
            assertThatThrownBy(() -> encryption.finish(BOUND))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("No space left on device");
            assertThat(encryption.running()).isFalse();
          }
        });
  }

  @Test
  void aFailureAfterTheLastWriteFailsFinish() {
    OutputStream failsOnFlush =
        new OutputStream() {
          @Override
          public void write(int b) {}

          @Override
          public void flush() throws IOException {
            throw new IOException("flush refused");
          }
        };

    assertTimeoutPreemptively(
        BOUND,
        () -> {
          try (StreamingEncryption encryption =
              StreamingEncryption.start(cipher, failsOnFlush, BUFFER)) {
            encryption.write(randomBytes(1000, 5));
            assertThatThrownBy(() -> encryption.finish(BOUND))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("encrypting the snapshot failed")
                .hasMessageContaining("flush refused");
          }
        });
  }

  @Test
  void closingBeforeTheEndStopsTheThreadAndLaterWritesFail() {
    assertTimeoutPreemptively(
        BOUND,
        () -> {
          StreamingEncryption encryption =
              StreamingEncryption.start(cipher, OutputStream.nullOutputStream(), BUFFER);
          encryption.write(randomBytes(100_000, 6));

          encryption.close();

          assertThat(encryption.running()).isFalse();
          assertThatThrownBy(() -> encryption.write(1)).isInstanceOf(IOException.class);
        });
  }

  @Test
  void closingWhileTheOutputHangsAndTheBufferIsFullReleasesTheWriterAndStopsTheThread() {
    CountDownLatch outputEntered = new CountDownLatch(1);
    OutputStream hangs =
        new OutputStream() {
          @Override
          public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
          }

          @Override
          public void write(byte[] b, int off, int len) throws IOException {
            outputEntered.countDown();
            try {
              new CountDownLatch(1).await();
            } catch (InterruptedException e) {
              throw new InterruptedIOException("output interrupted");
            }
          }
        };

    assertTimeoutPreemptively(
        BOUND,
        () -> {
          StreamingEncryption encryption = StreamingEncryption.start(cipher, hangs, BUFFER);
          byte[] piece = randomBytes(64 << 10, 7);
          CompletableFuture<Void> writer =
              CompletableFuture.runAsync(
                  () -> {
                    try {
                      while (true) encryption.write(piece, 0, piece.length);
                    } catch (IOException e) {
                      throw new java.io.UncheckedIOException(e);
                    }
                  });
          outputEntered.await();

          encryption.close();

          assertThat(encryption.running()).isFalse();
          assertThatThrownBy(writer::join).hasRootCauseInstanceOf(IOException.class);
        });
  }

  private static byte[] randomBytes(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }
}
