package io.etcdrunbooks.workflows.model;

import java.util.Map;

/**
 * Whether every member holds the same data.
 *
 * @param revision revision at which the hashes were taken
 * @param hashByMember hashkv of each member at that revision
 * @param raftIndexByMember raft index of each member once they converged (or at the last try)
 * @param raftIndexesConverged every member's raft index came within the allowed lag of the leader's
 * @param compactRevision the compaction every hashed member reported: hashes of two rounds at one
 *     revision are comparable only at one compaction (0 in reports recorded before this field)
 */
public record ConsistencyReport(
    long revision,
    Map<String, Long> hashByMember,
    Map<String, Long> raftIndexByMember,
    boolean raftIndexesConverged,
    long compactRevision) {

  public ConsistencyReport(
      long revision,
      Map<String, Long> hashByMember,
      Map<String, Long> raftIndexByMember,
      boolean raftIndexesConverged) {
    this(revision, hashByMember, raftIndexByMember, raftIndexesConverged, 0);
  }

  public boolean hashesEqual() {
    return hashByMember.values().stream().distinct().count() <= 1;
  }
}
