package io.etcdrunbooks.workflows.maintenance;

import io.etcdrunbooks.workflows.activities.MaintenanceActivities;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.MemberRef;
import io.etcdrunbooks.workflows.testing.FakeCluster;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Members' databases in memory: a compaction frees three quarters of what is in use, a
 * defragmentation gives the free part back; disarming clears the fake cluster's alarms.
 */
final class FakeMaintenance implements MaintenanceActivities {

  private final FakeCluster cluster;
  private final Map<String, MemberSpace> spaces = new LinkedHashMap<>();
  private final List<String> defragmented = new ArrayList<>();
  private long compactedTo;
  private ApiServerCompaction apiServer = ApiServerCompaction.none();

  FakeMaintenance(FakeCluster cluster, Map<String, long[]> sizeAndInUseMiB) {
    this.cluster = cluster;
    sizeAndInUseMiB.forEach((m, s) -> spaces.put(m, new MemberSpace(m, s[0] << 20, s[1] << 20)));
  }

  @Override
  public synchronized MemberSpace space(MemberRef member) {
    return spaces.get(member.member());
  }

  @Override
  public MemberSpace settledSpace(MemberRef member) {
    return space(member);
  }

  @Override
  public synchronized long compact(CompactRequest request) {
    if (request.revision() > compactedTo) {
      spaces.replaceAll((m, s) -> new MemberSpace(m, s.sizeBytes(), s.inUseBytes() / 4));
      compactedTo = request.revision();
    }
    return compactedTo;
  }

  @Override
  public synchronized ApiServerCompaction apiServerCompaction(ClusterRef ref) {
    return apiServer;
  }

  /** kube-apiserver's marker as if it had compacted to {@code revision}. */
  synchronized FakeMaintenance apiServerCompacted(long revision, long atRevision) {
    apiServer = new ApiServerCompaction(true, revision, atRevision);
    return this;
  }

  @Override
  public synchronized MemberSpace defragment(MemberRef member) {
    defragmented.add(member.member());
    MemberSpace s = spaces.get(member.member());
    MemberSpace after = new MemberSpace(s.member(), s.inUseBytes(), s.inUseBytes());
    spaces.put(member.member(), after);
    return after;
  }

  @Override
  public List<String> disarmNospace(ClusterRef ref) {
    return cluster.clearAlarms().stream().map(a -> a.substring(a.lastIndexOf(' ') + 1)).toList();
  }

  synchronized List<String> defragmented() {
    return List.copyOf(defragmented);
  }

  synchronized long compactedTo() {
    return compactedTo;
  }
}
