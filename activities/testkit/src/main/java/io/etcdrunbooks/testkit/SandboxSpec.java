package io.etcdrunbooks.testkit;

import io.etcdrunbooks.inventory.ServiceSpec;
import java.nio.file.Path;
import java.util.Map;

/**
 * A local cluster to build.
 *
 * @param dir the sandbox's own directory (created; a previous sandbox in it is stopped and
 *     replaced)
 * @param cluster cluster name in the inventory
 * @param members member count; members are named m1..mN
 * @param version etcd version every member starts with
 * @param extraEnvByMember extra etcd settings per member name, for example {m3: {ETCD_LOGGER:
 *     capnslog}}: etcd.env lines for plain members, {@code --logger=capnslog} flags in the manifest
 *     for static-pod members
 * @param serviceKind {@code plain} (default): etcd processes started over SSH; {@code static-pod}:
 *     kubeadm-like manifests run by a kubelet stand-in per host
 * @param tls clients reach etcd over https and must show a certificate of the sandbox's own CA
 *     ({@link Sandbox#certificates()}); the inventory's {@code tls} section names the RSA client's
 *     files
 * @param kubeadmPki with tls, each member also has kubeadm's other certificates beside its
 *     server.crt, each with a key of its own: {@code peer.crt} (presented on an https peer URL,
 *     peers' certificates required) and {@code healthcheck-client.crt}
 */
public record SandboxSpec(
    Path dir,
    String cluster,
    int members,
    String version,
    Map<String, Map<String, String>> extraEnvByMember,
    String serviceKind,
    boolean tls,
    boolean kubeadmPki) {

  public SandboxSpec {
    extraEnvByMember = extraEnvByMember == null ? Map.of() : Map.copyOf(extraEnvByMember);
    serviceKind = serviceKind == null ? ServiceSpec.PLAIN : serviceKind;
    if (members < 1) throw new IllegalArgumentException("a sandbox needs at least one member");
    if (!serviceKind.equals(ServiceSpec.PLAIN) && !serviceKind.equals(ServiceSpec.STATIC_POD)) {
      throw new IllegalArgumentException(
          "a sandbox runs 'plain' or 'static-pod' members, not '" + serviceKind + "'");
    }
  }

  public SandboxSpec(
      Path dir,
      String cluster,
      int members,
      String version,
      Map<String, Map<String, String>> extraEnvByMember,
      String serviceKind,
      boolean tls) {
    this(dir, cluster, members, version, extraEnvByMember, serviceKind, tls, false);
  }

  public SandboxSpec(
      Path dir,
      String cluster,
      int members,
      String version,
      Map<String, Map<String, String>> extraEnvByMember,
      String serviceKind) {
    this(dir, cluster, members, version, extraEnvByMember, serviceKind, false);
  }

  public SandboxSpec(
      Path dir,
      String cluster,
      int members,
      String version,
      Map<String, Map<String, String>> extraEnvByMember) {
    this(dir, cluster, members, version, extraEnvByMember, ServiceSpec.PLAIN);
  }

  public SandboxSpec(Path dir, String cluster, int members, String version) {
    this(dir, cluster, members, version, Map.of());
  }

  /** This spec with client TLS on or off. */
  public SandboxSpec withTls(boolean tls) {
    return new SandboxSpec(
        dir, cluster, members, version, extraEnvByMember, serviceKind, tls, kubeadmPki);
  }

  /** This spec with client TLS and kubeadm's peer and healthcheck client certificates. */
  public SandboxSpec withKubeadmPki() {
    return new SandboxSpec(
        dir, cluster, members, version, extraEnvByMember, serviceKind, true, true);
  }

  public boolean staticPods() {
    return ServiceSpec.STATIC_POD.equals(serviceKind);
  }
}
