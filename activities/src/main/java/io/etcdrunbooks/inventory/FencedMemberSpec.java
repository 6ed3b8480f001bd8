package io.etcdrunbooks.inventory;

/**
 * A tombstone: a member that RecoverQuorum took out of the cluster without its consent. Its etcd
 * still holds the old membership and cluster id: should it run again beside its old peers they
 * could elect a leader and serve the old state. Discovery looks for it at its client URL on every
 * run and stops it on its host.
 *
 * @param name the member's name when it was fenced
 * @param memberId its etcd member id in hex ("" when the survivor could not list it)
 * @param host its SSH host when it was fenced (the other fields as {@link MemberSpec})
 * @param fencedBy the recovery that fenced it ({@code recover-<id>})
 * @param how {@value #ON_HOST} (stopped, disabled and its data dir renamed on its host) or {@value
 *     #ATTESTED_DESTROYED} (its host could not be logged in to; the request said it is destroyed)
 */
public record FencedMemberSpec(
    String name,
    String memberId,
    String host,
    int sshPort,
    String clientUrl,
    String peerUrl,
    String dataDir,
    String installDir,
    String serviceDir,
    String fencedBy,
    String how) {

  public static final String ON_HOST = "on-host";
  public static final String ATTESTED_DESTROYED = "attested-destroyed";

  /** The member as it was, for the host code. */
  public MemberSpec member() {
    return new MemberSpec(name, host, sshPort, clientUrl, peerUrl, dataDir, installDir, serviceDir);
  }
}
