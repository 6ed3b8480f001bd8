package io.etcdrunbooks.workflows.common;

import io.temporal.workflow.Workflow;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;

/** Keeps a runbook's progress inside workflow code; time comes from {@link Workflow#currentTimeMillis()}. */
public final class ProgressTracker {

  private final String runbook;
  private String cluster = "";
  private final List<CompletedStep> completed = new ArrayList<>();
  private final Logger log;
  private Phase phase = Phase.STARTING;
  private String step = "";
  private String member = "";
  private String message = "";
  private boolean paused;

  public ProgressTracker(String runbook, Class<?> workflowClass) {
    this.runbook = runbook;
    this.log = Workflow.getLogger(workflowClass);
  }

  /** Called first thing in the workflow method. */
  public void start(String clusterName) {
    cluster = clusterName;
  }

  /** The pause signal: takes effect at the next {@link #awaitResumed()}. */
  public void pause() {
    paused = true;
  }

  public void resume() {
    paused = false;
  }

  /** Where a runbook may be held between members. */
  public void awaitResumed() {
    if (paused) {
      message("paused before the next member; signal resume to go on");
      log.info("{} {}: paused", runbook, cluster);
    }
    Workflow.await(() -> !paused);
  }

  /** Marks the runbook failed with the root cause of {@code e}, which the caller rethrows. */
  public RuntimeException failed(RuntimeException e) {
    phase(Phase.FAILED);
    message(Failures.rootMessage(e));
    return e;
  }

  public void phase(Phase next) {
    phase = next;
    member = "";
    log.info("{} {}: phase {}", runbook, cluster, next);
  }

  public Phase phase() {
    return phase;
  }

  public void step(String ladderStep) {
    step = ladderStep;
  }

  public void member(String name) {
    member = name;
  }

  public void message(String text) {
    message = text;
  }

  /** Runs one named step and records its timing and outcome; failures are recorded and rethrown. */
  public <T> T record(String name, Supplier<T> action) {
    long start = Workflow.currentTimeMillis();
    try {
      T result = action.get();
      add(name, start, "done");
      return result;
    } catch (RuntimeException e) {
      add(name, start, "failed: " + Failures.rootMessage(e));
      throw e;
    }
  }

  public void run(String name, Runnable action) {
    record(name, () -> {
      action.run();
      return null;
    });
  }

  public void skipped(String name, String why) {
    add(name, Workflow.currentTimeMillis(), "skipped: " + why);
  }

  private void add(String name, long start, String outcome) {
    completed.add(new CompletedStep(name, start, Workflow.currentTimeMillis() - start, outcome));
    log.info("{} {}: {} -> {}", runbook, cluster, name, outcome);
  }

  public Progress snapshot() {
    return new Progress(runbook, cluster, phase, step, member, paused, List.copyOf(completed), message);
  }
}
