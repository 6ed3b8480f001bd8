package io.etcdrunbooks.activities.etcd;

import io.grpc.Status;

/** A call to etcd failed or did not answer in time; the message names the call and the reason. */
public final class EtcdCallException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public EtcdCallException(String message, Throwable cause) {
    super(message, cause);
  }

  /** The gRPC status of a failed call when there is one, its message otherwise. */
  static String describe(Throwable failure) {
    Status status = Status.fromThrowable(failure);
    if (status.getCode() != Status.Code.UNKNOWN || status.getDescription() != null) {
      return status.getCode()
          + (status.getDescription() == null ? "" : " (" + status.getDescription() + ")");
    }
    return failure.getMessage() == null ? failure.getClass().getSimpleName() : failure.getMessage();
  }

  /** The reply was larger than the client accepts. */
  boolean isResourceExhausted() {
    return Status.fromThrowable(getCause()).getCode() == Status.Code.RESOURCE_EXHAUSTED;
  }

  /**
   * etcd's "required revision is a future revision": the member has not applied that revision yet.
   */
  boolean isFutureRevision() {
    String text = getMessage();
    return text != null && text.contains("future revision");
  }

  /** etcd refused a call for want of credentials: authentication is on. */
  boolean isAuthRequired() {
    return saysAuthRequired(getMessage());
  }

  /** Whether an error message is etcd's refusal for want of credentials. */
  static boolean saysAuthRequired(String text) {
    return text != null
        && (text.contains("user name is empty")
            || text.contains("permission denied")
            || text.contains("invalid auth token"));
  }

  /** etcd's "required revision has been compacted". */
  boolean isCompacted() {
    String text = getMessage();
    return text != null && text.contains("compacted");
  }
}
