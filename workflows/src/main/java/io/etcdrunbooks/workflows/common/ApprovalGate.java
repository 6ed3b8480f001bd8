package io.etcdrunbooks.workflows.common;

import java.util.function.BooleanSupplier;

/** Where a runbook started with requireApproval waits for an operator before its first change. */
public interface ApprovalGate {

  /**
   * @param firstChange what approval lets happen, for the progress message
   * @param stopWaiting ends the wait early when it becomes true
   * @return true once approved, false when {@code stopWaiting} ended the wait; a cancel ends it
   *     with CanceledFailure
   */
  boolean awaitApproval(String firstChange, BooleanSupplier stopWaiting);
}
