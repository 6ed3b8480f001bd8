package io.etcdrunbooks.workflows.common;

/**
 * What every runbook implementation shares: its progress, the pause/resume signals, and marking the runbook failed
 * with the root cause before the failure leaves the workflow.
 */
public abstract class RunbookWorkflow implements Runbook {

  protected final ProgressTracker progress;

  protected RunbookWorkflow(String runbookType) {
    this.progress = new ProgressTracker(runbookType, getClass());
  }

  /** Runs a runbook's body for one cluster; a failure is recorded in the progress, then rethrown. */
  protected final <T> T runFor(String cluster, java.util.function.Supplier<T> body) {
    progress.start(cluster);
    try {
      return body.get();
    } catch (RuntimeException e) {
      throw progress.failed(e);
    }
  }

  @Override
  public final Progress progress() {
    return progress.snapshot();
  }

  @Override
  public final void pause() {
    progress.pause();
  }

  @Override
  public final void resume() {
    progress.resume();
  }
}
