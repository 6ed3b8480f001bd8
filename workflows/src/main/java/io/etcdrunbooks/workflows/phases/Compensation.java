package io.etcdrunbooks.workflows.phases;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * The one way a runbook undoes its changes (Temporal's saga): the undo of a change is registered
 * before the change is made, and {@link #undo()} runs the registered undos, newest first. Runbooks
 * run their bodies in a detached cancellation scope ({@link
 * io.etcdrunbooks.workflows.common.RunbookWorkflow}), so a cancelled run still undoes.
 */
public final class Compensation {

  /** One registered undo: what it does, and the undo, which answers whether it changed anything. */
  private record Undo(String what, BooleanSupplier undo) {}

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

  /**
   * Runs the registered undos, newest first, and forgets them. Stops at the first undo that throws;
   * the exception carries on, and {@link Outcome#undone()} of what ran before it is in {@link
   * UndoFailed}.
   *
   * @return what was undone (undos that found nothing to change are left out)
   */
  public Outcome undo() {
    List<String> undone = new ArrayList<>();
    while (!undos.isEmpty()) {
      Undo next = undos.pop();
      try {
        if (next.undo().getAsBoolean()) undone.add(next.what());
      } catch (RuntimeException e) {
        throw new UndoFailed(next.what(), List.copyOf(undone), e);
      }
    }
    return new Outcome(List.copyOf(undone));
  }

  /**
   * @param undone the undos that changed something, in the order they ran
   */
  public record Outcome(List<String> undone) {}

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
}
