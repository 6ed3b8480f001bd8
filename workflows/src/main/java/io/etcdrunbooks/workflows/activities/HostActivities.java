package io.etcdrunbooks.workflows.activities;

import io.etcdrunbooks.workflows.model.MemberRef;
import io.temporal.activity.ActivityInterface;

/**
 * What the runbooks do on a member's host over SSH, through the cluster's service manager.
 * Each call looks at the host first and does nothing when the work is already done.
 */
@ActivityInterface
public interface HostActivities {

  /** Version of the etcd binary the member's service is set to run (not necessarily running). */
  String installedVersion(MemberRef member);

  /** Stops the member's etcd gracefully (a leader hands over leadership on SIGTERM). No-op when stopped. */
  void stopMember(MemberRef member);

  /** Puts the version's binaries on the host (checksum-verified) and points the service at them. */
  void installVersion(InstallRequest request);

  /** Starts the member's etcd. No-op when it runs. */
  void startMember(MemberRef member);

  /** Last lines of the member's etcd log. */
  String logTail(LogTailRequest request);

  record InstallRequest(String cluster, String member, String version) {}

  record LogTailRequest(String cluster, String member, int lines) {}
}
