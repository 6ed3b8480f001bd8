package io.etcdrunbooks.workflows.common;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The id of the plan a waiting runbook shows for approval: a hash of the run, which of its gates
 * waits, what approval lets happen and the plan its progress showed, so that an approval of what
 * was shown never lets another run, another wave or another plan go on. Deterministic (no time, no
 * randomness): the same run replays the same id.
 */
final class ApprovalPlan {

  private ApprovalPlan() {}

  static String id(String workflowId, String runId, int gate, String firstChange, String shown) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      for (String part :
          new String[] {workflowId, runId, Integer.toString(gate), firstChange, shown}) {
        String value = part == null ? "" : part;
        sha.update((value.length() + ":" + value + "\n").getBytes(StandardCharsets.UTF_8));
      }
      return HexFormat.of().formatHex(sha.digest(), 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is not available", e);
    }
  }
}
