package io.etcdrunbooks.activities.support;

import io.temporal.activity.Activity;
import io.temporal.activity.ActivityExecutionContext;
import java.time.Duration;

/**
 * Heartbeats when called on an activity's thread; does nothing elsewhere (plain tests, helper
 * threads).
 */
public final class Heartbeats {

  /**
   * The longest an activity goes without a heartbeat while a long call or command runs: well under
   * the shortest heartbeat timeout a worker may set
   * (runbooks.activities.wait-heartbeat-timeout-seconds, 5 s at least; Temporal's SDK sends one to
   * the server at most every 80 % of it, whatever the calls).
   */
  public static final Duration EVERY = Duration.ofSeconds(2);

  private Heartbeats() {}

  public static void beat(String details) {
    ActivityExecutionContext context;
    try {
      context = Activity.getExecutionContext();
    } catch (IllegalStateException notInAnActivity) {
      return;
    }
    // may throw ActivityCompletionException when the activity was cancelled or timed out: let it
    // end the work
    context.heartbeat(details);
  }

  /**
   * Sleeps between polls; an interrupt ends the wait with an exception rather than being swallowed.
   */
  public static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting", e);
    }
  }
}
