package io.etcdrunbooks.workflows.model;

import java.util.List;

/**
 * What one member reports about itself through its client URL.
 *
 * @param name inventory name of the member
 * @param id etcd member id (0 when the member could not be reached)
 * @param reachable the member answered a status request
 * @param healthy reachable, no errors reported, and it sees a leader
 * @param serverVersion etcd server version the member runs, for example 3.4.23 (empty when
 *     unreachable)
 * @param learner the member is a non-voting learner
 * @param dbSizeBytes backend database size
 * @param raftIndex the member's raft index
 * @param raftAppliedIndex the member's applied index (equals raftIndex before 3.4, which does not
 *     report it)
 * @param leaderId the leader this member sees (0 for none)
 * @param errors errors the member reports, or why it could not be reached
 */
public record MemberStatus(
    String name,
    long id,
    boolean reachable,
    boolean healthy,
    String serverVersion,
    boolean learner,
    long dbSizeBytes,
    long raftIndex,
    long raftAppliedIndex,
    long leaderId,
    List<String> errors) {

  public boolean leads() {
    return reachable && id != 0 && id == leaderId;
  }
}
