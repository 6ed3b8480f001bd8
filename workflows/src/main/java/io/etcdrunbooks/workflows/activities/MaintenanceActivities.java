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

  /** Defragments one member (it answers nothing while it does); its database afterwards. */
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
}
