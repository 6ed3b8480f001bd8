package io.etcdrunbooks.activities.backup;

import io.etcdrunbooks.activities.support.Heartbeats;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;

/** Heartbeats every 64 MiB while a large file is encrypted or read back. */
final class ProgressOutputStream extends FilterOutputStream {
  private static final long EVERY = 64L << 20;
  private final String what;
  private long bytes;
  private long nextBeat = EVERY;

  ProgressOutputStream(OutputStream out, String what) {
    super(out);
    this.what = what;
  }

  @Override
  public void write(byte[] b, int off, int len) throws IOException {
    out.write(b, off, len);
    bytes += len;
    if (bytes >= nextBeat) {
      nextBeat += EVERY;
      Heartbeats.beat(what + ": " + bytes + " bytes");
    }
  }
}
