package io.etcdrunbooks.activities.backup;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.function.LongConsumer;

/**
 * Tells {@code progress} the bytes read so far after every read. An upload's body is read as the
 * network takes it, so an activity that heartbeats here keeps heartbeating over a slow link while
 * one large part is on the wire (a heartbeat per part would miss the timeout below ~2 Mbit/s).
 */
final class ProgressInputStream extends FilterInputStream {

  private final LongConsumer progress;
  private long bytes;

  ProgressInputStream(InputStream in, LongConsumer progress) {
    super(in);
    this.progress = progress;
  }

  @Override
  public int read() throws IOException {
    int b = in.read();
    if (b >= 0) advance(1);
    return b;
  }

  @Override
  public int read(byte[] buffer, int off, int len) throws IOException {
    int n = in.read(buffer, off, len);
    if (n > 0) advance(n);
    return n;
  }

  @Override
  public long skip(long n) throws IOException {
    long skipped = in.skip(n);
    if (skipped > 0) advance(skipped);
    return skipped;
  }

  private void advance(long n) {
    bytes += n;
    progress.accept(bytes);
  }
}
