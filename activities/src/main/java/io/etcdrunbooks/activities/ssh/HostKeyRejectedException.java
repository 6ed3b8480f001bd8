package io.etcdrunbooks.activities.ssh;

/** The host presented a key that its known_hosts file does not vouch for. Retrying cannot help. */
public final class HostKeyRejectedException extends SshException {
  private static final long serialVersionUID = 1L;

  public HostKeyRejectedException(String message) {
    super(message);
  }
}
