package io.etcdrunbooks.activities.release;

/** A downloaded release tarball does not have its configured SHA-256; it was discarded. */
public final class ReleaseChecksumException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  public ReleaseChecksumException(String message) {
    super(message);
  }
}
