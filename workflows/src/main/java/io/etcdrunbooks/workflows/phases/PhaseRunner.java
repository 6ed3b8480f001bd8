package io.etcdrunbooks.workflows.phases;

import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.ProgressTracker;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Runs a runbook's phases in order, each entering the progress (and its metric) once as it starts;
 * a phase whose condition does not hold is skipped. The order lives here, what each phase does
 * lives in its body. A phase whose step fails with changes to undo ({@link PhaseFailed}) is
 * compensated here: the runner enters COMPENSATE, runs the registered undos newest first and throws
 * the failure the runbook's {@link FailureMapping} makes of the outcome.
 */
public final class PhaseRunner<R> {

  private final List<RunbookPhase<R>> phases;
  private final Optional<Described> compensation;
  private final Optional<FailureMapping<R>> failures;

  @SafeVarargs
  @SuppressWarnings("varargs") // List.of copies the array and only reads it
  public PhaseRunner(RunbookPhase<R>... phases) {
    this(Optional.empty(), Optional.empty(), List.of(phases));
  }

  private PhaseRunner(
      Optional<Described> compensation,
      Optional<FailureMapping<R>> failures,
      List<RunbookPhase<R>> phases) {
    this.phases = phases;
    this.compensation = compensation;
    this.failures = failures;
  }

  /**
   * The same phases, with the phase a failed change enters to undo itself ({@link Compensation})
   * and the runbook's failure mapping; it is entered where a phase fails, so it is not one of the
   * phases run in order.
   */
  public PhaseRunner<R> compensatingIn(Phase name, String does, FailureMapping<R> failures) {
    return new PhaseRunner<>(Optional.of(new Described(name, does)), Optional.of(failures), phases);
  }

  public void run(R run, ProgressTracker progress) {
    for (RunbookPhase<R> phase : phases) {
      if (!phase.runsWhen().test(run)) continue;
      progress.phase(phase.name());
      try {
        phase.body().accept(run);
      } catch (PhaseFailed failed) {
        throw compensate(run, progress, failed);
      }
    }
  }

  /** The runbook's failure, once the changes registered for undoing are undone. */
  private RuntimeException compensate(R run, ProgressTracker progress, PhaseFailed failed) {
    if (failures.isEmpty()) return failed.failure(); // a runbook that registers no undo
    FailureMapping<R> mapping = failures.get();
    Compensation undos = failed.undos();
    if (undos.isEmpty()) return mapping.failure(run, failed, Compensation.Outcome.NOTHING);
    progress.phase(compensation.orElseThrow().name());
    Optional<RuntimeException> instead = mapping.insteadOfUndos(run, failed);
    if (instead.isPresent()) {
      undos.commit();
      return instead.get();
    }
    return mapping.failure(run, failed, undos.undo());
  }

  /** The phases in order, for docs/runbooks/phases.md and its test. */
  public List<RunbookPhase<R>> phases() {
    return phases;
  }

  public List<Phase> names() {
    return phases.stream().map(RunbookPhase::name).toList();
  }

  /**
   * Every phase with what it does, in order, the compensation phase last: what
   * docs/runbooks/phases.md lists.
   */
  public List<Described> described() {
    List<Described> all = new ArrayList<>();
    phases.forEach(p -> all.add(new Described(p.name(), p.does())));
    compensation.ifPresent(all::add);
    return all;
  }

  /** A phase's name and what it does, as the docs show it. */
  public record Described(Phase name, String does) {}
}
