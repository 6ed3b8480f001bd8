package io.etcdrunbooks.activities.support;

import io.temporal.activity.Activity;
import io.temporal.activity.ActivityInfo;
import java.time.Duration;

/**
 * The end of a wait that carries its own timeout. A retried attempt (after a worker crash, a missed
 * heartbeat or a lost connection) subtracts the time since the first attempt was scheduled, so it
 * finishes the same wait instead of starting a new one. Both times come from Temporal's clock, so a
 * worker whose clock is off does not shorten the wait.
 */
public final class WaitDeadline {

  private final long endNanos;

  private WaitDeadline(long endNanos) {
    this.endNanos = endNanos;
  }

  public static WaitDeadline afterSeconds(long timeoutSeconds) {
    return after(
        Duration.ofSeconds(timeoutSeconds), spentByEarlierAttemptsMillis(), System.nanoTime());
  }

  static WaitDeadline after(Duration timeout, long spentByEarlierAttemptsMillis, long nowNanos) {
    return new WaitDeadline(
        nowNanos
            + timeout.toNanos()
            - Duration.ofMillis(Math.max(0, spentByEarlierAttemptsMillis)).toNanos());
  }

  /**
   * From the first attempt's scheduling to this attempt's; 0 for a first attempt and outside an
   * activity.
   */
  private static long spentByEarlierAttemptsMillis() {
    ActivityInfo info;
    try {
      info = Activity.getExecutionContext().getInfo();
    } catch (IllegalStateException notInAnActivity) {
      return 0;
    }
    if (info.getAttempt() <= 1 || info.getScheduledTimestamp() <= 0) return 0;
    return info.getCurrentAttemptScheduledTimestamp() - info.getScheduledTimestamp();
  }

  public boolean passed() {
    return System.nanoTime() - endNanos >= 0;
  }
}
