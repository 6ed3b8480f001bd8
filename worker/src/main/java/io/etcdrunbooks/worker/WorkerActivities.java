package io.etcdrunbooks.worker;

import io.etcdrunbooks.activities.apiserver.ApiServerActivitiesImpl;
import io.etcdrunbooks.activities.backup.BackupActivitiesImpl;
import io.etcdrunbooks.activities.backup.DrillActivitiesImpl;
import io.etcdrunbooks.activities.backup.RestoreActivitiesImpl;
import io.etcdrunbooks.activities.etcd.DowngradeActivitiesImpl;
import io.etcdrunbooks.activities.etcd.MaintenanceActivitiesImpl;
import io.etcdrunbooks.activities.etcd.MembershipActivitiesImpl;
import io.etcdrunbooks.activities.etcd.RecoveryActivitiesImpl;
import io.etcdrunbooks.activities.host.HostActivitiesImpl;
import io.etcdrunbooks.activities.host.NewMemberActivitiesImpl;
import io.etcdrunbooks.activities.inventory.InventoryActivitiesImpl;
import io.etcdrunbooks.activities.kubernetes.KubernetesActivitiesImpl;
import io.etcdrunbooks.activities.migrate.MigrationActivitiesImpl;
import io.etcdrunbooks.activities.release.ReleaseActivitiesImpl;
import io.etcdrunbooks.activities.release.ReleaseStore;
import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.activities.support.RunLiveness;
import io.etcdrunbooks.activities.targets.ClusterTargets;
import io.etcdrunbooks.activities.tls.TlsActivitiesImpl;
import io.etcdrunbooks.inventory.InventorySource;
import io.etcdrunbooks.workflows.activities.ApiServerActivities;
import io.etcdrunbooks.workflows.activities.BackupActivities;
import io.etcdrunbooks.workflows.activities.DowngradeActivities;
import io.etcdrunbooks.workflows.activities.DrillActivities;
import io.etcdrunbooks.workflows.activities.EtcdActivities;
import io.etcdrunbooks.workflows.activities.HostActivities;
import io.etcdrunbooks.workflows.activities.InventoryActivities;
import io.etcdrunbooks.workflows.activities.KubernetesActivities;
import io.etcdrunbooks.workflows.activities.MaintenanceActivities;
import io.etcdrunbooks.workflows.activities.MembershipActivities;
import io.etcdrunbooks.workflows.activities.MigrationActivities;
import io.etcdrunbooks.workflows.activities.NewMemberActivities;
import io.etcdrunbooks.workflows.activities.RecoveryActivities;
import io.etcdrunbooks.workflows.activities.ReleaseActivities;
import io.etcdrunbooks.workflows.activities.RestoreActivities;
import io.etcdrunbooks.workflows.activities.TlsActivities;

/** Every activity implementation a worker registers, one per system the runbooks touch. */
public record WorkerActivities(
    EtcdActivities etcd,
    HostActivities host,
    ReleaseActivities releases,
    BackupActivities backup,
    MembershipActivities membership,
    NewMemberActivities newMember,
    InventoryActivities inventory,
    ApiServerActivities apiServer,
    RestoreActivities restore,
    MigrationActivities migration,
    TlsActivities tls,
    MaintenanceActivities maintenance,
    RecoveryActivities recovery,
    KubernetesActivities kubernetes,
    DowngradeActivities downgrade,
    DrillActivities drill) {

  /** The real implementations over one inventory file, SSH client and binary source. */
  public static WorkerActivities of(
      InventorySource inventory, EtcdActivities etcd, SshConnector ssh, ReleaseStore releases) {
    return of(
        inventory,
        etcd,
        new ReleaseActivitiesImpl(new ClusterTargets(inventory, ssh), releases),
        ssh,
        releases,
        RunLiveness.ALWAYS_OPEN);
  }

  /**
   * As {@link #of(InventorySource, EtcdActivities, SshConnector, ReleaseStore)}, with the process's
   * release activities.
   *
   * @param liveness asked before a host is switched to a version, so a step of a terminated run
   *     does not switch it
   */
  public static WorkerActivities of(
      InventorySource inventory,
      EtcdActivities etcd,
      ReleaseActivities releaseActivities,
      SshConnector ssh,
      ReleaseStore releases,
      RunLiveness liveness) {
    ClusterTargets targets = new ClusterTargets(inventory, ssh);
    return new WorkerActivities(
        etcd,
        new HostActivitiesImpl(targets, releases).withRunLiveness(liveness),
        releaseActivities,
        new BackupActivitiesImpl(targets, releases, ssh),
        new MembershipActivitiesImpl(targets),
        new NewMemberActivitiesImpl(targets, releases),
        new InventoryActivitiesImpl(inventory),
        new ApiServerActivitiesImpl(targets),
        new RestoreActivitiesImpl(targets, releases),
        new MigrationActivitiesImpl(targets, releases),
        new TlsActivitiesImpl(targets),
        new MaintenanceActivitiesImpl(targets),
        new RecoveryActivitiesImpl(targets, releases),
        new KubernetesActivitiesImpl(targets),
        new DowngradeActivitiesImpl(targets),
        new DrillActivitiesImpl(targets, releases));
  }

  Object[] all() {
    return new Object[] {
      etcd,
      host,
      releases,
      backup,
      membership,
      newMember,
      inventory,
      apiServer,
      restore,
      migration,
      tls,
      maintenance,
      recovery,
      kubernetes,
      downgrade,
      drill
    };
  }
}
