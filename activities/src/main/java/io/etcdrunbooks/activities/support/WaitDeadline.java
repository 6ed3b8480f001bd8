package io.etcdrunbooks.activities.support;

import io.temporal.activity.Activity;
import io.temporal.activity.ActivityInfo;
import java.time.Duration;

/**
 * The end of a wait that carries its own timeout. Inside an activity it counts from when the workflow first scheduled
 * the step, so a retried attempt (after a worker crash or a lost connection) finishes the same wait instead of starting
 * a new one; elsewhere it counts from now.
 */
public final class WaitDeadline {

  private final long endNanos;

  private WaitDeadline(long endNanos) {
    this.endNanos = endNanos;
  }

  public static WaitDeadline afterSeconds(long timeoutSeconds) {
    return after(Duration.ofSeconds(timeoutSeconds), firstScheduledMillis(), System.currentTimeMillis(), System.nanoTime());
  }

  static WaitDeadline after(Duration timeout, long firstScheduledMillis, long nowMillis, long nowNanos) {
    long elapsedMillis = firstScheduledMillis > 0 ? Math.max(0, nowMillis - firstScheduledMillis) : 0;
    return new WaitDeadline(nowNanos + timeout.toNanos() - Duration.ofMillis(elapsedMillis).toNanos());
  }

  /** Epoch millis of the first attempt's scheduling, 0 outside an activity. */
  private static long firstScheduledMillis() {
    try {
      ActivityInfo info = Activity.getExecutionContext().getInfo();
      return info.getScheduledTimestamp();
    } catch (IllegalStateException notInAnActivity) {
      return 0;
    }
  }

  public boolean passed() {
    return System.nanoTime() - endNanos >= 0;
  }
}
