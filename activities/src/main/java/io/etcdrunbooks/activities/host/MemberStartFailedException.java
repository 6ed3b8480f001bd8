package io.etcdrunbooks.activities.host;

/** etcd was started but did not stay up; the message carries the end of its log. */
public final class MemberStartFailedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public MemberStartFailedException(String message) {
    super(message);
  }
}
