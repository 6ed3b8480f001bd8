package io.etcdrunbooks.workflows.activities;

import io.etcdrunbooks.workflows.model.ClusterRef;
import io.temporal.activity.ActivityInterface;
import java.util.Map;

/**
 * etcd's online downgrade (3.6 and later), as {@code etcdctl downgrade validate|enable|cancel} and
 * {@code endpoint status} ask it. Each call reads where the downgrade stands first and does nothing
 * that is done.
 */
@ActivityInterface
public interface DowngradeActivities {

  /** Where the downgrade stands, from every member's status; touches nothing. */
  DowngradeStatus status(ClusterRef cluster);

  /**
   * etcd's {@code downgrade validate}: fails, non-retryably as DowngradeRefused, with etcd's reason
   * when etcd would refuse the target. Touches nothing.
   */
  void validate(DowngradeTarget request);

  /**
   * etcd's {@code downgrade enable}; returns false, doing nothing, when the downgrade to that
   * target is already enabled. etcd lowers the cluster version to the target at once.
   */
  boolean enable(DowngradeTarget request);

  /** etcd's {@code downgrade cancel}; returns false, doing nothing, when none is in flight. */
  boolean cancel(ClusterRef cluster);

  /**
   * Heartbeats until every member that reports a storage version (3.6 and later) reports the
   * target's ({@code 3.5.0}) and, when asked, etcd has ended the downgrade (its leader does so a
   * few seconds after every member runs the target); fails as StorageVersionNotReached after the
   * timeout.
   */
  DowngradeStatus awaitStorageVersion(StorageVersionWait request);

  /**
   * @param minorVersion the version etcd downgrades to, as etcdctl takes it: {@code 3.5}
   */
  record DowngradeTarget(String cluster, String minorVersion) {}

  /**
   * @param downgradeEnded also wait until no downgrade is in flight any more
   */
  record StorageVersionWait(
      String cluster, String minorVersion, int timeoutSeconds, boolean downgradeEnded) {}

  /**
   * @param enabled a downgrade is in flight (as the members that report it say)
   * @param targetVersion its target, for example 3.5.0; "" when none
   * @param storageVersions each member's storage version; members that do not report one (3.5 and
   *     older, or unreachable) are absent
   */
  record DowngradeStatus(
      boolean enabled, String targetVersion, Map<String, String> storageVersions) {

    /** Whether the downgrade to {@code minorVersion} (3.5) is the one in flight. */
    public boolean enabledTo(String minorVersion) {
      return enabled
          && (targetVersion.equals(minorVersion) || targetVersion.startsWith(minorVersion + "."));
    }
  }
}
