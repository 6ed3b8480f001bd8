package io.etcdrunbooks.workflows.activities;

import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.MemberRef;
import io.temporal.activity.ActivityInterface;
import java.util.List;

/** etcd's maintenance API: compaction, defragmentation, alarms. Each step is safe to repeat. */
@ActivityInterface
public interface MaintenanceActivities {

  /** The member's database: its file size and the part of it in use. */
  MemberSpace space(MemberRef member);

  /**
   * As {@link #space}, once the part in use has stopped changing: a compaction is applied on every
   * member in batches after the call that asked for it returns, and until then the member shows
   * less to give back than it has.
   */
  MemberSpace settledSpace(MemberRef member);

  /**
   * Compacts the keyspace's history up to {@code revision} (physically: the call returns once every
   * member has applied it). A history compacted there or beyond already is left as it is.
   *
   * @return the revision the history is compacted to
   */
  long compact(CompactRequest request);

  /**
   * Where kube-apiserver's own compaction stands: the key {@value ApiServerCompaction#KEY} it
   * rewrites at every compaction (every 5 minutes by default). Touches nothing.
   */
  ApiServerCompaction apiServerCompaction(ClusterRef cluster);

  /**
   * Defragments one member (it answers nothing while it does); its database afterwards. A
   * defragmentation still running in etcd (one the client stopped waiting for, or another worker's)
   * is waited for, not queued behind.
   */
  MemberSpace defragment(MemberRef member);

  /** Disarms every NOSPACE alarm; the members that had one (none: nothing done). */
  List<String> disarmNospace(ClusterRef cluster);

  /**
   * @param sizeBytes the database file's size
   * @param inUseBytes the part of it holding data; the rest a defragmentation gives back
   */
  record MemberSpace(String member, long sizeBytes, long inUseBytes) {
    public long freeBytes() {
      return Math.max(0, sizeBytes - inUseBytes);
    }
  }

  record CompactRequest(String cluster, long revision) {}

  /**
   * kube-apiserver's compaction marker. At each of its compactions kube-apiserver writes the
   * revision it saw at its previous one into {@value #KEY} and compacts to it, so the history it
   * keeps for paginated LISTs and lagging watches is one to two intervals long (5-10 min by
   * default).
   *
   * @param marked whether the key exists (absent: no kube-apiserver compacts this cluster, or its
   *     --etcd-compaction-interval is 0)
   * @param compactedTo the revision kube-apiserver compacted to last (the key's value)
   * @param markedAtRevision the cluster's revision when it did (the key's mod revision)
   */
  record ApiServerCompaction(boolean marked, long compactedTo, long markedAtRevision) {
    public static final String KEY = "compact_rev_key";

    public static ApiServerCompaction none() {
      return new ApiServerCompaction(false, 0, 0);
    }
  }
}
