package io.etcdrunbooks.workflows.model;

import java.util.Map;

/**
 * Every member's hashkv at one revision: etcd's own hash of every key-value entry (each revision of
 * each key) from its newest compaction up to the revision, computed on the member. Two readings at
 * the same revision and the same compaction that agree show the keyspace at that revision unchanged
 * without reading it out.
 *
 * @param compactRevision the compaction every member reported (hashes are only comparable at one)
 */
public record KeyspaceHashes(long revision, long compactRevision, Map<String, Long> hashByMember) {

  /**
   * Whether {@code later} shows the same entries: the same revision and compaction, and every
   * member then with the one hash every member had here.
   */
  public boolean sameEntriesAs(KeyspaceHashes later) {
    if (later == null || revision != later.revision || compactRevision != later.compactRevision)
      return false;
    if (hashByMember.isEmpty() || hashByMember.values().stream().distinct().count() != 1)
      return false;
    long hash = hashByMember.values().iterator().next();
    return !later.hashByMember.isEmpty()
        && later.hashByMember.values().stream().allMatch(h -> h == hash);
  }
}
