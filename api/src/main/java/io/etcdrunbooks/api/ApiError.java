package io.etcdrunbooks.api;

/** An error answer: what is wrong, and the id of a runbook it concerns when there is one. */
public record ApiError(String message, String workflowId) {

  public ApiError(String message) {
    this(message, null);
  }
}
