package io.etcdrunbooks.workflows.common;

import io.temporal.failure.CanceledFailure;
import io.temporal.workflow.Workflow;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;

/**
 * Keeps a runbook's progress inside workflow code; time comes from {@link
 * Workflow#currentTimeMillis()}.
 */
public final class ProgressTracker {

  private final String runbook;
  private boolean searchAttributesRegistered;
  private String cluster = "";
  private final List<CompletedStep> completed = new ArrayList<>();
  private final List<MemberDownTime> downTimes = new ArrayList<>();
  private final Logger log;
  private Phase phase = Phase.STARTING;
  private String step = "";
  private String member = "";
  private String message = "";
  private boolean paused;
  private int pauseSignals;
  private String cancelRequest = "";
  private String approvalPlan = "";
  private RunbookMetrics metrics;
  private long phaseSince;

  public ProgressTracker(String runbook, Class<?> workflowClass) {
    this.runbook = runbook;
    this.log = Workflow.getLogger(workflowClass);
  }

  /**
   * The worker's runbooks.search-attributes.enabled: a run started without the attributes takes
   * them at its start ({@link RunbookSearchAttributes#upsertAtStart}).
   */
  void searchAttributesRegistered(boolean registered) {
    searchAttributesRegistered = registered;
  }

  /** Called first thing in the workflow method. */
  public void start(String clusterName) {
    RunbookSearchAttributes.upsertAtStart(runbook, clusterName, searchAttributesRegistered);
    cluster = clusterName;
    RunbookLogContext.put(RunbookLogContext.CLUSTER, clusterName);
    RunbookLogContext.put(RunbookLogContext.PHASE, phase.name());
    metrics = RunbookMetrics.of(runbook, clusterName == null ? "" : clusterName);
    metrics.started();
    phaseSince = Workflow.currentTimeMillis();
  }

  /** Counts the runbook's end: completed, failed or cancelled. */
  void finished(String outcome) {
    if (metrics == null) return;
    metrics.finished(outcome);
  }

  /** A schedule's next round is due at {@code epochMillis}, for the schedule-health alert. */
  public void scheduleNext(long epochMillis) {
    if (metrics != null) metrics.scheduleNext(epochMillis);
  }

  /**
   * A member stopped, switched and ready again on {@code version}: its down time, from its stop
   * ({@code stoppedAtMillis}) until now, goes to the progress and the metrics.
   */
  public MemberDownTime memberRestarted(String name, String version, long stoppedAtMillis) {
    MemberDownTime down =
        new MemberDownTime(name, version, Workflow.currentTimeMillis() - stoppedAtMillis);
    downTimes.add(down);
    if (metrics != null) metrics.memberRestart(name, down.millis());
    message("%s ready on %s after %d ms down".formatted(name, version, down.millis()));
    return down;
  }

  /** Every member restart's down time so far, oldest first. */
  public List<MemberDownTime> downTimes() {
    return List.copyOf(downTimes);
  }

  /** The pause signal: takes effect at the next {@link #awaitResumed()}. */
  public void pause() {
    paused = true;
    pauseSignals++;
  }

  public void resume() {
    paused = false;
    pauseSignals++;
  }

  /**
   * How many pause and resume signals the runbook has taken: a caller that read the cluster can
   * tell whether a pause came after, however short (a resume may arrive in the same workflow task).
   */
  public int pauseSignals() {
    return pauseSignals;
  }

  /** Whether a pause signal holds the runbook (until resume). */
  public boolean isPaused() {
    return paused;
  }

  /** Where a runbook may be held between members. */
  public void awaitResumed() {
    if (paused) {
      message("paused before the next member; signal resume to go on");
      log.info("{} {}: paused", runbook, cluster);
    }
    Workflow.await(() -> !paused);
  }

  /**
   * A cancel request: the runbook stops at its next {@link #safePoint}, never in the middle of a
   * member or a restore.
   *
   * @param by who asked (the Temporal cancel request's reason), for the progress and the failure
   *     message
   */
  public void cancelRequested(String by) {
    if (!cancelRequest.isEmpty()) return;
    cancelRequest = by == null || by.isBlank() ? "a cancel request" : by;
    message("cancel requested (" + cancelRequest + "): stopping at the next safe point");
    log.info("{} {}: cancel requested by {}", runbook, cluster, cancelRequest);
  }

  public boolean isCancelRequested() {
    return !cancelRequest.isEmpty();
  }

  /**
   * Where a cancel request stops a runbook without holding it for a pause (places that did not
   * honour pause when the runbook shipped, so replaying a paused history stays the same).
   */
  public void stopIfCancelled(String next) {
    if (isCancelRequested()) safePoint(next);
  }

  /**
   * Where a runbook may be held (pause) or stopped (cancel): before its first change and between
   * members. A cancelled runbook ends here with {@link CanceledFailure}, naming what it did not do.
   *
   * @param next what would come next, for example "member m2"
   */
  public void safePoint(String next) {
    if (paused && !isCancelRequested()) {
      message("paused before " + next + "; signal resume to go on");
      log.info("{} {}: paused", runbook, cluster);
    }
    Workflow.await(() -> !paused || isCancelRequested());
    if (isCancelRequested()) {
      throw new CanceledFailure(
          "cancelled by %s before %s; the cluster was left as it was after the last finished step"
              .formatted(cancelRequest, next));
    }
  }

  /**
   * Marks the runbook failed (or cancelled) with the root cause of {@code e}, which the caller
   * rethrows.
   */
  public RuntimeException failed(RuntimeException e) {
    phase(e instanceof CanceledFailure ? Phase.CANCELLED : Phase.FAILED);
    message(Failures.rootMessage(e));
    return e;
  }

  public void phase(Phase next) {
    long now = Workflow.currentTimeMillis();
    if (metrics != null && next != phase) {
      metrics.phase(phase, now - phaseSince);
    }
    if (next != phase) {
      phaseSince = now;
      // No Workflow.getVersion: only runs started with the search attributes upsert, and no history
      // recorded before them (nor a run started from the Web UI without them) carries them, so
      // such histories replay with the same commands.
      RunbookSearchAttributes.upsertPhase(next);
    }
    phase = next;
    RunbookLogContext.put(RunbookLogContext.PHASE, next.name());
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

  /** The plan waiting for approval; empty once it waits no more. */
  void approvalPlan(String id) {
    approvalPlan = id;
  }

  /** The last notable event, as the progress shows it. */
  String message() {
    return message;
  }

  /** Who asked for the cancel, empty when none was asked for. */
  String cancelRequestedBy() {
    return cancelRequest;
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
    record(
        name,
        () -> {
          action.run();
          return null;
        });
  }

  public void skipped(String name, String why) {
    add(name, Workflow.currentTimeMillis(), "skipped: " + why);
  }

  private void add(String name, long start, String outcome) {
    completed.add(new CompletedStep(name, start, Workflow.currentTimeMillis() - start, outcome));
    if (metrics != null && !member.isEmpty())
      metrics.memberStep(member, phase, Workflow.currentTimeMillis() - start);
    log.info("{} {}: {} -> {}", runbook, cluster, name, outcome);
  }

  public Progress snapshot() {
    return new Progress(
        runbook,
        cluster,
        phase,
        step,
        member,
        paused,
        List.copyOf(completed),
        message,
        List.copyOf(downTimes),
        approvalPlan,
        phaseSince);
  }
}
