package io.etcdrunbooks.inventory;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Map;

/**
 * One etcd cluster.
 *
 * @param name cluster name used by runbook inputs
 * @param members the members, with their hosts and paths
 * @param service how each member's etcd is run
 * @param ssh how to reach the hosts
 * @param tls client TLS for the etcd client URLs (null for plain http)
 * @param backupDir directory on the worker's host where snapshots are kept
 * @param controlPlane kube-apiserver hosts that use this cluster
 * @param backup encryption and retention of the backups (null: encrypted, see {@link BackupSpec})
 * @param labels what the cluster is (environment, size, region, anything), for fleets' selectors;
 *     {@code size} orders FleetUpgrade's waves (small, medium, large)
 * @param fenced tombstones of members RecoverQuorum fenced: discovery stops any that answers again
 * @param kubernetes the Kubernetes API this etcd serves (kubeadm-config, nodes); null: none, and
 *     the runbooks say what the operator must then update in kubeadm-config by hand
 */
public record ClusterSpec(
    String name,
    List<MemberSpec> members,
    ServiceSpec service,
    SshSpec ssh,
    TlsSpec tls,
    String backupDir,
    List<ControlPlaneHost> controlPlane,
    BackupSpec backup,
    EtcdAuthSpec auth,
    Map<String, String> labels,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) List<FencedMemberSpec> fenced,
    @JsonInclude(JsonInclude.Include.NON_NULL) KubernetesSpec kubernetes) {

  /** A cluster whose Kubernetes API the worker does not reach. */
  public ClusterSpec(
      String name,
      List<MemberSpec> members,
      ServiceSpec service,
      SshSpec ssh,
      TlsSpec tls,
      String backupDir,
      List<ControlPlaneHost> controlPlane,
      BackupSpec backup,
      EtcdAuthSpec auth,
      Map<String, String> labels,
      List<FencedMemberSpec> fenced) {
    this(
        name,
        members,
        service,
        ssh,
        tls,
        backupDir,
        controlPlane,
        backup,
        auth,
        labels,
        fenced,
        null);
  }

  /** A cluster without tombstones. */
  public ClusterSpec(
      String name,
      List<MemberSpec> members,
      ServiceSpec service,
      SshSpec ssh,
      TlsSpec tls,
      String backupDir,
      List<ControlPlaneHost> controlPlane,
      BackupSpec backup,
      EtcdAuthSpec auth,
      Map<String, String> labels) {
    this(
        name, members, service, ssh, tls, backupDir, controlPlane, backup, auth, labels, List.of());
  }

  /** A cluster without labels. */
  public ClusterSpec(
      String name,
      List<MemberSpec> members,
      ServiceSpec service,
      SshSpec ssh,
      TlsSpec tls,
      String backupDir,
      List<ControlPlaneHost> controlPlane,
      BackupSpec backup,
      EtcdAuthSpec auth) {
    this(name, members, service, ssh, tls, backupDir, controlPlane, backup, auth, Map.of());
  }

  /** A cluster without etcd authentication. */
  public ClusterSpec(
      String name,
      List<MemberSpec> members,
      ServiceSpec service,
      SshSpec ssh,
      TlsSpec tls,
      String backupDir,
      List<ControlPlaneHost> controlPlane,
      BackupSpec backup) {
    this(name, members, service, ssh, tls, backupDir, controlPlane, backup, null);
  }

  public ClusterSpec {
    members = members == null ? List.of() : List.copyOf(members);
    controlPlane = controlPlane == null ? List.of() : List.copyOf(controlPlane);
    labels = labels == null ? Map.of() : Map.copyOf(labels);
    fenced = fenced == null ? List.of() : List.copyOf(fenced);
  }

  /** This cluster with these labels. */
  public ClusterSpec withLabels(Map<String, String> newLabels) {
    return new ClusterSpec(
        name,
        members,
        service,
        ssh,
        tls,
        backupDir,
        controlPlane,
        backup,
        auth,
        newLabels,
        fenced,
        kubernetes);
  }

  /** This cluster with another client TLS section. */
  public ClusterSpec withTls(TlsSpec newTls) {
    return new ClusterSpec(
        name,
        members,
        service,
        ssh,
        newTls,
        backupDir,
        controlPlane,
        backup,
        auth,
        labels,
        fenced,
        kubernetes);
  }

  /** This cluster with etcd credentials (or none). */
  public ClusterSpec withAuth(EtcdAuthSpec newAuth) {
    return new ClusterSpec(
        name,
        members,
        service,
        ssh,
        tls,
        backupDir,
        controlPlane,
        backup,
        newAuth,
        labels,
        fenced,
        kubernetes);
  }

  /** The backup section, or what a cluster without one gets. */
  public BackupSpec backupSettings() {
    return backup == null ? BackupSpec.UNSET : backup;
  }

  /** The same cluster with other members, for example one being replaced. */
  public ClusterSpec withMembers(List<MemberSpec> otherMembers) {
    return new ClusterSpec(
        name,
        otherMembers,
        service,
        ssh,
        tls,
        backupDir,
        controlPlane,
        backup,
        auth,
        labels,
        fenced,
        kubernetes);
  }

  /** The same cluster with these tombstones. */
  public ClusterSpec withFenced(List<FencedMemberSpec> tombstones) {
    return new ClusterSpec(
        name,
        members,
        service,
        ssh,
        tls,
        backupDir,
        controlPlane,
        backup,
        auth,
        labels,
        tombstones,
        kubernetes);
  }

  /** This cluster with its backups read from another directory (a drill's fetched copy). */
  public ClusterSpec withBackupDir(String dir) {
    return new ClusterSpec(
        name,
        members,
        service,
        ssh,
        tls,
        dir,
        controlPlane,
        backup,
        auth,
        labels,
        fenced,
        kubernetes);
  }

  /** This cluster with a Kubernetes API to reach (or none). */
  public ClusterSpec withKubernetes(KubernetesSpec newKubernetes) {
    return new ClusterSpec(
        name,
        members,
        service,
        ssh,
        tls,
        backupDir,
        controlPlane,
        backup,
        auth,
        labels,
        fenced,
        newKubernetes);
  }

  public java.util.Optional<MemberSpec> findMember(String memberName) {
    return members.stream().filter(m -> m.name().equals(memberName)).findFirst();
  }

  public MemberSpec member(String memberName) {
    return members.stream()
        .filter(m -> m.name().equals(memberName))
        .findFirst()
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "cluster '"
                        + name
                        + "' has no member '"
                        + memberName
                        + "'; members: "
                        + members.stream().map(MemberSpec::name).toList()));
  }
}
