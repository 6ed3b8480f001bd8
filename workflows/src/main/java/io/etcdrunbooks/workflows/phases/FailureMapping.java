package io.etcdrunbooks.workflows.phases;

import java.util.Optional;

/**
 * A runbook's failure mapping: from a failed step ({@link PhaseFailed}) and what its compensation
 * did to the failure the runbook ends with, worded for the operator. The {@link PhaseRunner} calls
 * it; the runbook never enters COMPENSATE by hand.
 */
public interface FailureMapping<R> {

  /**
   * With COMPENSATE entered, before any undo runs: the runbook's failure when the registered undos
   * must not run (they are forgotten), because the changes are to stay or are undone another way.
   * Empty (the default): the undos run.
   */
  default Optional<RuntimeException> insteadOfUndos(R run, PhaseFailed failed) {
    return Optional.empty();
  }

  /**
   * The runbook's failure once the undos ran ({@link Compensation.Outcome#NOTHING}: none was
   * registered).
   */
  RuntimeException failure(R run, PhaseFailed failed, Compensation.Outcome outcome);
}
