package io.etcdrunbooks.workflows.model;

import java.util.Map;

/**
 * Whether every member holds the same data.
 *
 * @param revision revision at which the hashes were taken
 * @param hashByMember hashkv of each member at that revision
 * @param raftIndexByMember raft index of each member once they converged (or at the last try)
 * @param raftIndexesConverged every member's raft index came within the allowed lag of the leader's
 */
public record ConsistencyReport(
    long revision,
    Map<String, Long> hashByMember,
    Map<String, Long> raftIndexByMember,
    boolean raftIndexesConverged) {

  public boolean hashesEqual() {
    return hashByMember.values().stream().distinct().count() <= 1;
  }
}
