package io.etcdrunbooks.workflows.common;

/**
 * A control update's validator refuses it: the message is the reason, which the caller (the API's
 * 409, Slack, the Web UI) shows. A plain exception, not an ApplicationFailure: Temporal's SDK turns
 * a failure thrown by a validator into a workflow task failure, but rejects the update with any
 * other exception, whose class name becomes the ApplicationFailure type the caller sees.
 */
public final class ControlRefused extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public ControlRefused(String reason) {
    super(reason);
  }
}
