package io.etcdrunbooks.workflows.phases;

import io.etcdrunbooks.workflows.common.FailureType;
import io.temporal.failure.ApplicationFailure;
import java.util.List;

/**
 * The failure of a runbook that refuses before touching anything, in the one wording every runbook
 * uses.
 */
public final class Refusal {

  private Refusal() {}

  /**
   * @param what the runbook and its object, for example "upgrade of prod-1"
   * @param problems one line each, naming the member or host and what to do
   */
  public static ApplicationFailure of(String what, List<String> problems, FailureType type) {
    return type.nonRetryable(
        what + " refused, nothing was touched:\n  - " + String.join("\n  - ", problems));
  }
}
