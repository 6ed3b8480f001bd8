package io.etcdrunbooks.activities.ssh;

/** A host could not be reached, logged into or talked to over SSH. Never carries key material. */
public class SshException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public SshException(String message) {
    super(message);
  }

  public SshException(String message, Throwable cause) {
    super(message, cause);
  }
}
