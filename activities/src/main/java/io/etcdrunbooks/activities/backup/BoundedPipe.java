package io.etcdrunbooks.activities.backup;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;

/**
 * Bytes handed from one thread to another through a ring buffer of fixed size: the writer waits
 * while it is full, so a slow reader holds the writer back instead of filling memory. Breaking the
 * pipe wakes both sides, and their calls fail from then on instead of waiting.
 *
 * <p>Not {@link java.io.PipedInputStream}: its reader polls once a second for bytes written without
 * a flush, and it calls the pipe broken when the thread that wrote last has ended.
 */
final class BoundedPipe {

  private final byte[] ring;
  private int start;
  private int count;
  private long read;
  private boolean ended;
  private IOException broken;

  BoundedPipe(int capacity) {
    if (capacity < 1) throw new IllegalArgumentException("capacity " + capacity);
    this.ring = new byte[capacity];
  }

  synchronized void write(byte[] b, int off, int len) throws IOException {
    if (ended) throw new IOException("write after the end of the pipe's input");
    while (len > 0) {
      while (broken == null && count == ring.length) await();
      if (broken != null) throw new IOException(broken.getMessage(), broken);
      int at = (start + count) % ring.length;
      int n = Math.min(len, Math.min(ring.length - count, ring.length - at));
      System.arraycopy(b, off, ring, at, n);
      count += n;
      off += n;
      len -= n;
      notifyAll();
    }
  }

  /** The writer is done: the reader gets the end of the stream once the buffer is drained. */
  synchronized void end() {
    ended = true;
    notifyAll();
  }

  /** Both sides fail with {@code reason} from now on; the first reason stays. */
  synchronized void breakWith(IOException reason) {
    if (broken == null) broken = reason;
    notifyAll();
  }

  /** Bytes the reader has taken so far. */
  synchronized long bytesRead() {
    return read;
  }

  /** The reading side; to be read by one thread. */
  InputStream input() {
    return new InputStream() {
      @Override
      public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        return BoundedPipe.this.read(b, off, len);
      }
    };
  }

  private synchronized int read(byte[] b, int off, int len) throws IOException {
    if (len == 0) return 0;
    while (broken == null && count == 0 && !ended) await();
    if (broken != null) throw new IOException(broken.getMessage(), broken);
    if (count == 0) return -1;
    int n = Math.min(len, Math.min(count, ring.length - start));
    System.arraycopy(ring, start, b, off, n);
    start = (start + n) % ring.length;
    count -= n;
    read += n;
    notifyAll();
    return n;
  }

  private void await() throws InterruptedIOException {
    try {
      wait();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting on a pipe");
    }
  }
}
