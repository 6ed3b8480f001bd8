package io.etcdrunbooks.workflows.testing;

import io.etcdrunbooks.workflows.activities.DowngradeActivities;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.EtcdVersion;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * etcd's downgrade as 3.6 keeps it, over a {@link FakeCluster}: enabling lowers the cluster version
 * to the target at once, members on 3.6 and later report the storage version, the downgrade ends by
 * itself once every member runs the target, and a cancel lets the cluster version follow the
 * members again.
 */
public final class FakeDowngrade implements DowngradeActivities {

  private final FakeCluster cluster;
  private String target = "";
  private String refusal = "";
  private int enabled;

  /** The members' versions at each cancel that changed something. */
  public final List<Map<String, String>> cancelledWhile = new ArrayList<>();

  public FakeDowngrade(FakeCluster cluster) {
    this.cluster = cluster;
  }

  /** etcd's validate and enable refuse with this reason. */
  public synchronized FakeDowngrade refusing(String reason) {
    refusal = reason;
    return this;
  }

  /** A run before this one enabled the downgrade to {@code minor}. */
  public synchronized FakeDowngrade alreadyEnabled(String minor) {
    target = minor;
    cluster.clusterVersion(minor + ".0");
    return this;
  }

  /** How many enables changed something. */
  public synchronized int enables() {
    return enabled;
  }

  @Override
  public synchronized DowngradeStatus status(ClusterRef ref) {
    finishIfEveryMemberRunsTheTarget();
    Map<String, String> storage = new LinkedHashMap<>();
    String clusterVersion = cluster.discover(ref).clusterVersion();
    cluster
        .running()
        .forEach(
            (member, version) -> {
              if (!version.isEmpty()
                  && !EtcdVersion.parse(version).isBefore(new EtcdVersion(3, 6, 0)))
                storage.put(member, clusterVersion);
            });
    return new DowngradeStatus(!target.isEmpty(), target.isEmpty() ? "" : target + ".0", storage);
  }

  @Override
  public synchronized void validate(DowngradeTarget request) {
    if (!refusal.isEmpty()) throw FailureType.DowngradeRefused.nonRetryable(refusal);
    if (!target.isEmpty())
      throw FailureType.DowngradeRefused.nonRetryable(
          "etcdserver: cluster has a downgrade job in progress");
  }

  @Override
  public synchronized boolean enable(DowngradeTarget request) {
    if (request.minorVersion().equals(target)) return false;
    validate(request);
    target = request.minorVersion();
    cluster.clusterVersion(target + ".0");
    enabled++;
    return true;
  }

  @Override
  public synchronized boolean cancel(ClusterRef ref) {
    if (target.isEmpty()) return false;
    cancelledWhile.add(cluster.running());
    target = "";
    cluster.clusterVersion("");
    return true;
  }

  @Override
  public synchronized DowngradeStatus awaitStorageVersion(StorageVersionWait request) {
    return status(new ClusterRef(request.cluster()));
  }

  private void finishIfEveryMemberRunsTheTarget() {
    if (!target.isEmpty()
        && cluster.running().values().stream().allMatch(v -> v.startsWith(target + "."))) {
      target = "";
      cluster.clusterVersion("");
    }
  }
}
