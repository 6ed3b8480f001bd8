package io.etcdrunbooks.activities.backup;

import io.etcdrunbooks.activities.support.Heartbeats;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Encrypts a snapshot while it is streamed. What is written here is encrypted with a {@link
 * SnapshotCipher} by a thread of its own, not the writer's (jetcd's event loop, which also reads
 * the stream), fed through a {@link BoundedPipe}: a slow encryption holds the stream back instead
 * of filling memory. Writes fail as soon as the encryption has failed. {@link #finish} ends the
 * input and waits for the ciphertext to be written and flushed; {@link #close} stops the encryption
 * if it is still running. The ciphertext stream is the caller's to close.
 */
final class StreamingEncryption extends OutputStream {

  private static final Logger log = LoggerFactory.getLogger(StreamingEncryption.class);

  static final int BUFFER_BYTES = 4 << 20;

  /** How long {@link #close} waits for the encrypting thread to end once told to stop. */
  private static final Duration STOP_WAIT = Duration.ofSeconds(10);

  private final BoundedPipe pipe;
  private final Thread thread;
  private volatile IOException failure;

  private StreamingEncryption(SnapshotCipher cipher, OutputStream ciphertext, int bufferBytes) {
    this.pipe = new BoundedPipe(bufferBytes);
    this.thread = new Thread(() -> encrypt(cipher, ciphertext), "snapshot-encryption");
    thread.setDaemon(true);
  }

  static StreamingEncryption start(SnapshotCipher cipher, OutputStream ciphertext) {
    return start(cipher, ciphertext, BUFFER_BYTES);
  }

  static StreamingEncryption start(
      SnapshotCipher cipher, OutputStream ciphertext, int bufferBytes) {
    StreamingEncryption encryption = new StreamingEncryption(cipher, ciphertext, bufferBytes);
    encryption.thread.start();
    return encryption;
  }

  private void encrypt(SnapshotCipher cipher, OutputStream ciphertext) {
    try {
      cipher.encrypt(pipe.input(), ciphertext);
      ciphertext.flush();
    } catch (Throwable t) {
      IOException failed =
          new IOException(
              "encrypting the snapshot failed after "
                  + pipe.bytesRead()
                  + " bytes: "
                  + (t.getMessage() == null ? t.toString() : t.getMessage()),
              t);
      failure = failed;
      pipe.breakWith(failed);
    }
  }

  @Override
  public void write(int b) throws IOException {
    write(new byte[] {(byte) b}, 0, 1);
  }

  /** Waits while the buffer is full; fails once the encryption has failed or was stopped. */
  @Override
  public void write(byte[] b, int off, int len) throws IOException {
    pipe.write(b, off, len);
  }

  /** Throws the encryption's failure, when it has failed. */
  void throwIfFailed() throws IOException {
    IOException failed = failure;
    if (failed != null) throw new IOException(failed.getMessage(), failed);
  }

  /**
   * Ends the input and waits until all of it is encrypted and the ciphertext flushed, heartbeating;
   * fails when the encryption failed, or took no byte for {@code stallTimeout}.
   */
  void finish(Duration stallTimeout) throws IOException {
    pipe.end();
    long lastBytes = -1;
    long lastProgress = System.nanoTime();
    try {
      while (true) {
        thread.join(1000);
        if (!thread.isAlive()) break;
        long bytes = pipe.bytesRead();
        if (bytes != lastBytes) {
          lastBytes = bytes;
          lastProgress = System.nanoTime();
        } else if (System.nanoTime() - lastProgress > stallTimeout.toNanos()) {
          throw new IOException(
              "encrypting the snapshot made no progress at "
                  + bytes
                  + " bytes for "
                  + stallTimeout.toSeconds()
                  + " s");
        }
        Heartbeats.beat("encrypting the snapshot: " + bytes + " bytes");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while the snapshot was being encrypted");
    }
    throwIfFailed();
  }

  /** Whether the encrypting thread is still running. */
  boolean running() {
    return thread.isAlive();
  }

  /**
   * Stops the encryption when it has not finished: a writer waiting for room, and the encrypting
   * thread, fail instead of waiting. Waits a little for the thread to end.
   */
  @Override
  public void close() {
    pipe.breakWith(new IOException("the snapshot's encryption was stopped"));
    if (!thread.isAlive()) return;
    // an interrupt also ends a write to a file channel in progress (and closes the channel)
    thread.interrupt();
    try {
      thread.join(STOP_WAIT.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (thread.isAlive())
      log.warn(
          "the snapshot's encrypting thread did not stop within {} s of being told to",
          STOP_WAIT.toSeconds());
  }
}
