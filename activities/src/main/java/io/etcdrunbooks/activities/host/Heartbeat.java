package io.etcdrunbooks.activities.host;

import io.temporal.activity.Activity;
import io.temporal.activity.ActivityExecutionContext;

/** Heartbeats the current activity; does nothing outside one, so the host code also runs in plain programs. */
final class Heartbeat {

  private Heartbeat() {}

  static void beat(String detail) {
    ActivityExecutionContext context;
    try {
      context = Activity.getExecutionContext();
    } catch (IllegalStateException notInActivity) {
      return;
    }
    context.heartbeat(detail);
  }
}
