package io.etcdrunbooks.workflows.phases;

/**
 * A step of a phase failed after changes were made whose undos are registered ({@link
 * Compensation#failed}): the {@link PhaseRunner} that runs the phase undoes them and throws the
 * runbook's failure instead. Never seen outside the runner.
 */
public final class PhaseFailed extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final transient Object what;
  private final transient Compensation undos;

  PhaseFailed(RuntimeException cause, Object what, Compensation undos) {
    super(cause.getMessage(), cause);
    this.what = what;
    this.undos = undos;
  }

  /** The step's own failure. */
  public RuntimeException failure() {
    return (RuntimeException) getCause();
  }

  /** Where and what failed, as the phase describes it for the runbook's failure mapping. */
  public Object what() {
    return what;
  }

  Compensation undos() {
    return undos;
  }
}
