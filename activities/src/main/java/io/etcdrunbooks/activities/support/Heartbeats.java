package io.etcdrunbooks.activities.support;

import io.temporal.activity.Activity;
import io.temporal.activity.ActivityExecutionContext;

/**
 * Heartbeats when called on an activity's thread; does nothing elsewhere (plain tests, helper
 * threads).
 */
public final class Heartbeats {

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
