package io.etcdrunbooks.activities.host;

import io.temporal.activity.Activity;
import io.temporal.activity.ActivityInfo;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.UUID;

/**
 * Names one runbook step's restart of a member, the same on every attempt of the step (its run and
 * activity id), so that a retry knows the host's restart command as its own. Outside an activity
 * (tools, tests) every call is a step of its own.
 */
final class RestartToken {

  private RestartToken() {}

  /** 32 hex digits: usable in a file and a unit name as they are. */
  static String ofThisStep() {
    String step;
    try {
      ActivityInfo info = Activity.getExecutionContext().getInfo();
      step = info.getWorkflowId() + "/" + info.getWorkflowRunId() + "/" + info.getActivityId();
    } catch (IllegalStateException | UnsupportedOperationException notInAnActivity) {
      step = UUID.randomUUID().toString();
    }
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(step.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
