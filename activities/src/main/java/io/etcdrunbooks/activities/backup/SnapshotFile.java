package io.etcdrunbooks.activities.backup;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Where a streamed snapshot is written. etcd ends the stream with the SHA-256 of everything before
 * it (the trailer {@code etcdutl snapshot restore} checks); this sink checks that trailer as the
 * bytes go by. Written by jetcd's event-loop thread, read for progress by the activity's thread.
 */
final class SnapshotFile extends OutputStream {

  private static final int TRAILER = 32;

  private final FileChannel channel;
  private final PacedSync sync;
  // one digest, on jetcd's event loop: the whole file's is this one's state plus the trailer
  private final MessageDigest payload;
  private final byte[] tail = new byte[TRAILER];
  private int tailLength;
  private final AtomicLong bytes = new AtomicLong();

  SnapshotFile(Path file) throws IOException {
    this.channel =
        FileChannel.open(
            file,
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE);
    this.sync = new PacedSync(channel);
    try {
      this.payload = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void write(int b) throws IOException {
    write(new byte[] {(byte) b}, 0, 1);
  }

  @Override
  public synchronized void write(byte[] b, int off, int len) throws IOException {
    ByteBuffer buffer = ByteBuffer.wrap(b, off, len);
    while (buffer.hasRemaining()) channel.write(buffer);
    sync.wrote(len);
    if (len >= TRAILER) {
      payload.update(tail, 0, tailLength);
      payload.update(b, off, len - TRAILER);
      System.arraycopy(b, off + len - TRAILER, tail, 0, TRAILER);
      tailLength = TRAILER;
    } else {
      int overflow = tailLength + len - TRAILER;
      if (overflow > 0) {
        payload.update(tail, 0, overflow);
        System.arraycopy(tail, overflow, tail, 0, tailLength - overflow);
        tailLength -= overflow;
      }
      System.arraycopy(b, off, tail, tailLength, len);
      tailLength += len;
    }
    bytes.addAndGet(len);
  }

  long bytes() {
    return bytes.get();
  }

  /** The stream ended with the SHA-256 of what came before it. Call after the stream completed. */
  synchronized boolean trailerMatches() {
    return tailLength == TRAILER && MessageDigest.isEqual(copy(payload).digest(), tail);
  }

  /** The SHA-256 of the whole file, trailer included. Call after the stream completed. */
  synchronized byte[] fileSha256() {
    MessageDigest whole = copy(payload);
    whole.update(tail, 0, tailLength);
    return whole.digest();
  }

  private static MessageDigest copy(MessageDigest digest) {
    try {
      return (MessageDigest) digest.clone();
    } catch (CloneNotSupportedException e) {
      throw new IllegalStateException("SHA-256 digests of this JDK cannot be copied", e);
    }
  }

  /** Flushes the file to disk and closes it. */
  @Override
  public synchronized void close() throws IOException {
    if (channel.isOpen()) {
      try {
        channel.force(true);
      } finally {
        channel.close();
      }
    }
  }
}
