package io.etcdrunbooks.worker;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;
import java.time.Duration;

/**
 * What the worker gives the activities its runbooks schedule.
 *
 * @param waitHeartbeatTimeoutSeconds the most the heartbeat timeout of a wait (a member's restart,
 *     its readiness, a raft index or cluster version to come) may be: how long a wait whose worker
 *     died lasts before Temporal gives it to another worker. 20 (the default) is the waits' own;
 *     lower takes a dead worker's waits over sooner. At least 5: the waits heartbeat at every poll
 *     and every 2 s during a command, and Temporal sends one every 80 % of the timeout. The other
 *     steps, short and not heartbeating, keep their own (20 s to 1 min)
 */
@ConfigurationProperties("runbooks.activities")
public record ActivitiesConfig(@Bindable(defaultValue = "20") int waitHeartbeatTimeoutSeconds) {

  static final int MIN_WAIT_HEARTBEAT_TIMEOUT_SECONDS = 5;

  public ActivitiesConfig {
    if (waitHeartbeatTimeoutSeconds < MIN_WAIT_HEARTBEAT_TIMEOUT_SECONDS) {
      throw new IllegalArgumentException(
          "runbooks.activities.wait-heartbeat-timeout-seconds is "
              + waitHeartbeatTimeoutSeconds
              + ": it must be at least "
              + MIN_WAIT_HEARTBEAT_TIMEOUT_SECONDS
              + " (the waits heartbeat every 2 s at most); leave it unset for 20");
    }
  }

  Duration waitHeartbeatTimeout() {
    return Duration.ofSeconds(waitHeartbeatTimeoutSeconds);
  }
}
