package io.etcdrunbooks.workflows.phases;

import io.etcdrunbooks.workflows.activities.HostActivities.HostAccessRequest;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.ProgressTracker;
import io.temporal.failure.ActivityFailure;
import java.util.List;

/**
 * The preflight step every changing runbook shares: each host it may touch is logged in to with its
 * key checked against known_hosts, and shown able to run the runbook's commands, before the backup
 * and the first change. A runbook that found a host it cannot trust after changing members left the
 * cluster half-changed; now it refuses first.
 */
public final class HostAccessPreflight {

  private HostAccessPreflight() {}

  /**
   * Problems with the hosts, one line per host naming it and what to do; empty when every host can
   * be used.
   *
   * @param exceptMembers members whose hosts are not required (a failed member's host may be down)
   * @param controlPlaneEdits the runbook edits kube-apiserver manifests (restore, member
   *     replacement)
   */
  public static List<String> problems(
      Activities activities,
      ProgressTracker progress,
      String cluster,
      List<String> exceptMembers,
      boolean controlPlaneEdits) {
    // added after the runbooks shipped: histories recorded before it replay without the check
    if (!PhasePatches.HOST_ACCESS_PREFLIGHT.applies()) return List.of();
    try {
      return progress.record(
          "SSH access to every host (host keys, commands, sudo)",
          () ->
              activities.host.checkAccess(
                  new HostAccessRequest(cluster, exceptMembers, controlPlaneEdits)));
    } catch (ActivityFailure e) {
      return List.of("the hosts could not be checked: " + Failures.rootMessage(e));
    }
  }
}
