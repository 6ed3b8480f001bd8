package io.etcdrunbooks.activities.ssh;

/** A remote command ran but failed, or did not finish in time. */
public final class SshCommandException extends SshException {
  private static final long serialVersionUID = 1L;

  public SshCommandException(String message) {
    super(message);
  }
}
