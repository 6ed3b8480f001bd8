package io.etcdrunbooks.activities.backup;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/** Reads {@code length} bytes of a file from {@code offset}: one part of a multipart upload. */
final class FileRange extends FilterInputStream {

  private long remaining;

  private FileRange(InputStream in, long length) {
    super(in);
    this.remaining = length;
  }

  static InputStream open(Path file, long offset, long length) {
    try {
      FileChannel channel = FileChannel.open(file);
      try {
        channel.position(offset);
      } catch (IOException e) {
        channel.close();
        throw e;
      }
      return new FileRange(Channels.newInputStream(channel), length);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  @Override
  public int read() throws IOException {
    if (remaining <= 0) return -1;
    int b = super.read();
    if (b >= 0) remaining--;
    return b;
  }

  @Override
  public int read(byte[] buffer, int off, int len) throws IOException {
    if (remaining <= 0) return -1;
    int n = super.read(buffer, off, (int) Math.min(len, remaining));
    if (n > 0) remaining -= n;
    return n;
  }

  @Override
  public long skip(long n) throws IOException {
    long skipped = super.skip(Math.min(n, remaining));
    remaining -= skipped;
    return skipped;
  }

  @Override
  public int available() throws IOException {
    return (int) Math.min(super.available(), remaining);
  }

  @Override
  public boolean markSupported() {
    return false;
  }
}
