package io.etcdrunbooks.activities.backup;

import java.io.IOException;

/**
 * An encrypted backup could not be decrypted: wrong key or key id, or the file is damaged. Never
 * carries key material.
 */
public final class SnapshotDecryptionException extends IOException {
  private static final long serialVersionUID = 1L;

  public SnapshotDecryptionException(String message) {
    super(message);
  }
}
