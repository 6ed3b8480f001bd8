package io.etcdrunbooks.activities.targets;

import io.etcdrunbooks.activities.etcd.EtcdClients;
import io.etcdrunbooks.activities.etcd.MemberReadiness;
import io.etcdrunbooks.activities.host.BinaryInstaller;
import io.etcdrunbooks.activities.host.MemberHost;
import io.etcdrunbooks.activities.host.MemberShell;
import io.etcdrunbooks.activities.host.ServiceManager;
import io.etcdrunbooks.activities.host.VersionInstaller;
import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.Inventory;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.inventory.UnknownClusterException;
import io.etcdrunbooks.workflows.activities.EtcdActivities.AwaitMemberRequest;
import io.etcdrunbooks.workflows.common.FailureType;
import java.util.function.Supplier;

/**
 * What a runbook's names point at, as every activity reaches it: a cluster's inventory entry, a
 * member's host, the service manager and version installer of the cluster's service kind, and
 * clients to its etcd endpoints (with its TLS and credentials). The inventory is read at every
 * lookup, so that a reloaded inventory takes effect; an unknown name is refused without a retry.
 */
public final class ClusterTargets {

  private final Supplier<Inventory> inventory;
  private final SshConnector ssh;
  private final BinaryInstaller binaries;

  /** Targets whose hosts are reached through {@code ssh}. */
  public ClusterTargets(Supplier<Inventory> inventory, SshConnector ssh) {
    this.inventory = inventory;
    this.ssh = ssh;
    this.binaries = ssh == null ? null : new BinaryInstaller(ssh);
  }

  /** Targets reached through etcd's API alone: asking for a host's tools is a programming error. */
  public static ClusterTargets etcdOnly(Supplier<Inventory> inventory) {
    return new ClusterTargets(inventory, null);
  }

  /** The cluster's inventory entry; an unknown or invalid one fails as UnknownCluster. */
  public ClusterSpec cluster(String name) {
    try {
      return inventory.get().cluster(name);
    } catch (UnknownClusterException e) {
      throw FailureType.UnknownCluster.nonRetryable(e.getMessage());
    }
  }

  /** The member's inventory entry; one the cluster does not have fails as UnknownMember. */
  public MemberSpec member(ClusterSpec cluster, String member) {
    return cluster
        .findMember(member)
        .orElseThrow(
            () ->
                FailureType.UnknownMember.nonRetryable(
                    "cluster '" + cluster.name() + "' has no member '" + member + "'"));
  }

  /** The member's host, as {@link #member} finds the member. */
  public MemberHost host(ClusterSpec cluster, String member) {
    return MemberHost.of(cluster, member(cluster, member));
  }

  /** Clients to the cluster's members, to be closed by the caller. */
  public EtcdClients clients(String cluster) {
    return clients(cluster(cluster));
  }

  /**
   * Clients to the members {@code spec} lists (the inventory's, or with a member not yet in it).
   */
  public EtcdClients clients(ClusterSpec spec) {
    return new EtcdClients(spec);
  }

  /**
   * A member's readiness wait, its clients made now (before the member stops): see {@link
   * MemberReadiness}.
   */
  public MemberReadiness readiness(AwaitMemberRequest request) {
    return new MemberReadiness(clients(request.cluster()), request);
  }

  /** Starts, stops and reads the cluster's members as its service kind runs them. */
  public ServiceManager service(ClusterSpec cluster) {
    return ServiceManager.of(cluster.service(), ssh());
  }

  /** Installs and reads the etcd version of the cluster's members, as its service kind keeps it. */
  public VersionInstaller installer(ClusterSpec cluster) {
    return VersionInstaller.of(cluster.service(), ssh(), binaries());
  }

  /**
   * Uploads and selects etcd binaries on plain and systemd hosts; one per process, for its cache.
   */
  public BinaryInstaller binaries() {
    ssh();
    return binaries;
  }

  /**
   * The member's host for work on its stopped data dir; refuses a cluster without a service kind.
   *
   * @see MemberShell#of
   */
  public MemberShell shell(ClusterSpec cluster, String member, String work, String byHand) {
    return MemberShell.of(cluster, member, ssh(), work, byHand);
  }

  /** The SSH client the hosts are reached with. */
  public SshConnector ssh() {
    if (ssh == null) {
      throw new IllegalStateException(
          "these cluster targets reach etcd only: build them with an SshConnector to reach hosts");
    }
    return ssh;
  }
}
