package io.etcdrunbooks.workflows.model;

/**
 * A lost member fenced by RecoverQuorum before the survivor was forced into a cluster of one, as
 * the inventory keeps its tombstone.
 *
 * @param member where it ran
 * @param memberId its etcd member id in hex, "" when it could not be listed
 * @param fencedBy the recovery that fenced it
 * @param onHost fenced on its host (stopped, data dir renamed); false: its host could not be logged
 *     in to and the request attested it destroyed
 */
public record FencedMember(
    MemberPlacement member, String memberId, String fencedBy, boolean onHost) {}
