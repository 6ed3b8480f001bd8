package io.etcdrunbooks.workflows.model;

import java.util.List;
import java.util.Optional;

/**
 * A cluster as discovered through the etcd API.
 *
 * @param cluster inventory name
 * @param members every inventory member, in inventory order
 * @param leaderName inventory name of the leader, empty when no member sees one
 * @param clusterVersion the cluster version (major.minor.0, as /version reports it), empty when
 *     unknown
 * @param alarms raised alarms, for example "NOSPACE on m2"
 * @param revision current revision of the keyspace
 * @param alarmsUnread why the alarm list could not be read although a member answered; null or
 *     empty when it was read (histories recorded before this field have none: read)
 * @param authEnabled whether etcd's authentication is on; null when not known (older histories)
 * @param v2 the v2 store; null when not read (no member answered, or older histories)
 * @param certificates the members' server certificates as seen in a TLS handshake; null when not
 *     read (an http cluster, or older histories)
 * @param fencedBack members RecoverQuorum fenced that answered again, each with what discovery did
 *     (stopped on its host, or why not); null or empty when none did (older histories: none)
 * @param beyondInventory the members etcd lists that are no inventory member (an unpromoted learner
 *     added by hand, a removed member that reappeared); null when the member list was not read (and
 *     in older histories)
 */
public record ClusterState(
    String cluster,
    List<MemberStatus> members,
    String leaderName,
    String clusterVersion,
    List<String> alarms,
    long revision,
    String alarmsUnread,
    Boolean authEnabled,
    V2Store v2,
    ServerCertificates certificates,
    List<String> fencedBack,
    List<EtcdMember> beyondInventory) {

  public ClusterState(
      String cluster,
      List<MemberStatus> members,
      String leaderName,
      String clusterVersion,
      List<String> alarms,
      long revision,
      String alarmsUnread,
      Boolean authEnabled,
      V2Store v2,
      ServerCertificates certificates,
      List<String> fencedBack) {
    this(
        cluster,
        members,
        leaderName,
        clusterVersion,
        alarms,
        revision,
        alarmsUnread,
        authEnabled,
        v2,
        certificates,
        fencedBack,
        null);
  }

  public ClusterState(
      String cluster,
      List<MemberStatus> members,
      String leaderName,
      String clusterVersion,
      List<String> alarms,
      long revision,
      String alarmsUnread,
      Boolean authEnabled,
      V2Store v2,
      ServerCertificates certificates) {
    this(
        cluster,
        members,
        leaderName,
        clusterVersion,
        alarms,
        revision,
        alarmsUnread,
        authEnabled,
        v2,
        certificates,
        null);
  }

  public ClusterState(
      String cluster,
      List<MemberStatus> members,
      String leaderName,
      String clusterVersion,
      List<String> alarms,
      long revision,
      String alarmsUnread,
      Boolean authEnabled,
      V2Store v2) {
    this(
        cluster,
        members,
        leaderName,
        clusterVersion,
        alarms,
        revision,
        alarmsUnread,
        authEnabled,
        v2,
        null);
  }

  public ClusterState(
      String cluster,
      List<MemberStatus> members,
      String leaderName,
      String clusterVersion,
      List<String> alarms,
      long revision) {
    this(cluster, members, leaderName, clusterVersion, alarms, revision, null, null, null, null);
  }

  /** This state with what discovery found of fenced members answering again. */
  public ClusterState withFencedBack(List<String> found) {
    return new ClusterState(
        cluster,
        members,
        leaderName,
        clusterVersion,
        alarms,
        revision,
        alarmsUnread,
        authEnabled,
        v2,
        certificates,
        found,
        beyondInventory);
  }

  /** This state with the members etcd lists beyond the inventory. */
  public ClusterState withBeyondInventory(List<EtcdMember> found) {
    return new ClusterState(
        cluster,
        members,
        leaderName,
        clusterVersion,
        alarms,
        revision,
        alarmsUnread,
        authEnabled,
        v2,
        certificates,
        fencedBack,
        found);
  }

  /** The members etcd lists beyond the inventory; empty when none or not read. */
  public List<EtcdMember> membersBeyondInventory() {
    return beyondInventory == null ? List.of() : beyondInventory;
  }

  /** Fenced members that answered again, with what was done; empty when none did. */
  public List<String> fencedMembersBack() {
    return fencedBack == null ? List.of() : fencedBack;
  }

  /** The v2 store as read, or as good as absent when it was not. */
  public V2Store v2Store() {
    return v2 == null ? V2Store.NOT_SERVED : v2;
  }

  public boolean authOn() {
    return Boolean.TRUE.equals(authEnabled);
  }

  /** An alarm list that could not be read is not an empty one: a preflight must refuse. */
  public Optional<String> alarmsUnreadReason() {
    return alarmsUnread == null || alarmsUnread.isBlank()
        ? Optional.empty()
        : Optional.of(alarmsUnread);
  }

  public Optional<MemberStatus> member(String name) {
    return members.stream().filter(m -> m.name().equals(name)).findFirst();
  }

  public Optional<MemberStatus> leader() {
    return member(leaderName);
  }
}
