package io.etcdrunbooks.activities.support;

import io.etcdrunbooks.workflows.common.FailureType;
import io.temporal.activity.Activity;
import io.temporal.activity.ActivityInfo;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;

/**
 * Whether the runbook run that scheduled an activity is still open. A run terminated from the
 * Temporal Web UI does not stop the activity a worker is executing for it: an install of the new
 * version could then select its binary after the rollback that followed had put the old one back.
 * Activities that make an irreversible switch on a host ask first, and a step of a run that has
 * ended does nothing.
 */
@FunctionalInterface
public interface RunLiveness {

  /** For tests and tools that run activities outside Temporal: every run counts as open. */
  RunLiveness ALWAYS_OPEN = (workflowId, runId) -> true;

  /** False only when Temporal says the run has ended; true when it cannot tell. */
  boolean isOpen(String workflowId, String runId);

  /**
   * Fails the activity, touching nothing more, when it runs for a run that has ended.
   *
   * @param what the switch about to be made, for the message
   */
  default void requireOpen(String what) {
    requireOpenLater(what).run();
  }

  /**
   * Asks now, on another thread, and returns the step that fails as {@link #requireOpen} would: for
   * a switch whose question to Temporal should not add to a member's down time (asked when the stop
   * begins, answered by the time the version is selected).
   */
  default Runnable requireOpenLater(String what) {
    ActivityInfo info;
    try {
      info = Activity.getExecutionContext().getInfo();
    } catch (IllegalStateException | UnsupportedOperationException e) {
      return () -> {}; // not in an activity
    }
    CompletableFuture<Boolean> open =
        CompletableFuture.supplyAsync(
            () -> isOpen(info.getWorkflowId(), info.getWorkflowRunId()), Askers.POOL);
    return () -> {
      if (!open.join()) {
        throw FailureType.InvalidRequest.nonRetryable(
            "runbook "
                + info.getWorkflowId()
                + " (run "
                + info.getWorkflowRunId()
                + ") has ended (terminated or finished), so its step stopped before it would "
                + what);
      }
    };
  }

  /**
   * Threads of their own: the JVM's common pool has one thread on two cores, and a busy one would
   * hold the answer, and so the member's switch, back.
   */
  final class Askers {
    private Askers() {}

    static final ExecutorService POOL = DaemonThreads.cachedPool("run-liveness");
  }
}
