package io.etcdrunbooks.activities.ssh;

/** A host could not be reached, logged into or talked to over SSH. Never carries key material. */
public class SshException extends RuntimeException {

  public SshException(String message) {
    super(message);
  }

  public SshException(String message, Throwable cause) {
    super(message, cause);
  }
}
