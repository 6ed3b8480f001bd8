package io.etcdrunbooks.workflows.phases;

import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.ProgressTracker;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Runs a runbook's phases in order, each entering the progress (and its metric) once as it starts;
 * a phase whose condition does not hold is skipped. The order lives here, what each phase does
 * lives in its body.
 */
public final class PhaseRunner<R> {

  private final List<RunbookPhase<R>> phases;
  private final Optional<Described> compensation;

  @SafeVarargs
  @SuppressWarnings("varargs") // List.of copies the array and only reads it
  public PhaseRunner(RunbookPhase<R>... phases) {
    this(Optional.empty(), List.of(phases));
  }

  private PhaseRunner(Optional<Described> compensation, List<RunbookPhase<R>> phases) {
    this.phases = phases;
    this.compensation = compensation;
  }

  /**
   * The same phases, with the phase a failed change enters to undo itself ({@link Compensation});
   * the runbook enters it where the failure happens, so it is not one of the phases run in order.
   */
  public PhaseRunner<R> compensatingIn(Phase name, String does) {
    return new PhaseRunner<>(Optional.of(new Described(name, does)), phases);
  }

  public void run(R run, ProgressTracker progress) {
    for (RunbookPhase<R> phase : phases) {
      if (!phase.runsWhen().test(run)) continue;
      progress.phase(phase.name());
      phase.body().accept(run);
    }
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
