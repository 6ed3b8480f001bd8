package io.etcdrunbooks.workflows.phases;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * The one way a runbook undoes its changes (Temporal's saga): the undo of a change is registered
 * before the change is made, and when a step fails the phase throws {@link #failed}; the {@link
 * PhaseRunner} then enters COMPENSATE, runs the registered undos, newest first, and hands the
 * {@link Outcome} to the runbook's {@link FailureMapping}. Each run has one ({@link
 * RunContext#undos()}); a part of a phase whose changes become final on their own (a rung, a
 * member's join, a host's manifest) registers in a {@link #scope()}. Runbooks run their bodies in a
 * detached cancellation scope ({@link io.etcdrunbooks.workflows.common.RunbookWorkflow}), so a
 * cancelled run still undoes.
 */
public final class Compensation {

  /** One registered undo: what it does, and the undo, which answers whether it changed anything. */
  private static final class Undo {
    final String what;
    final BooleanSupplier undo;

    Undo(String what, BooleanSupplier undo) {
      this.what = what;
      this.undo = undo;
    }
  }

  private final Deque<Undo> undos = new ArrayDeque<>();

  /** Registers the undo of the change about to be made. */
  public void register(String what, BooleanSupplier undo) {
    undos.push(new Undo(what, undo));
  }

  public boolean isEmpty() {
    return undos.isEmpty();
  }

  /**
   * Forgets every registered undo: the changes are final (a step finished, the point of no return
   * passed).
   */
  public void commit() {
    undos.clear();
  }

  /** Undos registered here and committed apart from the run's others. */
  public Scope scope() {
    return new Scope();
  }

  /**
   * The failure of a step whose changes are to be undone, for the phase to throw: {@code what}
   * says, for the runbook's {@link FailureMapping}, where and what failed.
   */
  public PhaseFailed failed(RuntimeException cause, Object what) {
    return new PhaseFailed(cause, what, this);
  }

  /**
   * Runs the registered undos, newest first, and forgets them. Stops at the first undo that throws:
   * the outcome names it ({@link Outcome#stoppedAt()}).
   */
  public Outcome undo() {
    List<String> undone = new ArrayList<>();
    while (!undos.isEmpty()) {
      Undo next = undos.pop();
      try {
        if (next.undo.getAsBoolean()) undone.add(next.what);
      } catch (RuntimeException e) {
        undos.clear();
        return new Outcome(
            List.copyOf(undone), Optional.of(new UndoFailed(next.what, List.copyOf(undone), e)));
      }
    }
    return new Outcome(List.copyOf(undone), Optional.empty());
  }

  /**
   * @param undone the undos that changed something, in the order they ran
   * @param stoppedAt the undo that failed, when one did: the undos after it did not run
   */
  public record Outcome(List<String> undone, Optional<UndoFailed> stoppedAt) {

    /** Nothing was registered, so nothing ran. */
    public static final Outcome NOTHING = new Outcome(List.of(), Optional.empty());
  }

  /** An undo failed: which one, what was undone before it, and why (the cause). */
  public static final class UndoFailed extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String what;
    private final List<String> undoneBefore;

    public UndoFailed(String what, List<String> undoneBefore, RuntimeException cause) {
      super("undo of " + what + " failed", cause);
      this.what = what;
      this.undoneBefore = undoneBefore;
    }

    public String what() {
      return what;
    }

    public List<String> undoneBefore() {
      return undoneBefore;
    }
  }

  /**
   * Undos of one part of a phase, in the run's order among the others: {@link #commit()} forgets
   * them alone.
   */
  public final class Scope {
    private final List<Undo> mine = new ArrayList<>();

    public void register(String what, BooleanSupplier undo) {
      Undo registered = new Undo(what, undo);
      mine.add(registered);
      undos.push(registered);
    }

    /** The part's changes are final: its undos are forgotten, the run's others kept. */
    public void commit() {
      undos.removeIf(u -> mine.stream().anyMatch(m -> m == u));
      mine.clear();
    }
  }
}
