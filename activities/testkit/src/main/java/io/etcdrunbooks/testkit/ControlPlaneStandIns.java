package io.etcdrunbooks.testkit;

import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.ControlPlaneHost;
import io.etcdrunbooks.inventory.Inventory;
import io.etcdrunbooks.inventory.InventoryLoader;
import io.etcdrunbooks.inventory.MemberSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * kubeadm's stacked layout on a sandbox: a kube-apiserver static-pod manifest on every member's
 * host, pointing at every member, each served by a {@link KubeApiServerStandIn}; the inventory
 * gains the matching control-plane hosts.
 */
public final class ControlPlaneStandIns implements AutoCloseable {

  private final Map<String, KubeApiServerStandIn> standIns = new LinkedHashMap<>();
  private final Map<String, Path> manifests = new LinkedHashMap<>();

  public static ControlPlaneStandIns attach(Sandbox sandbox) throws IOException {
    return attach(sandbox, "");
  }

  /**
   * As {@link #attach(Sandbox)}, with {@code --storage-backend=<storageBackend>} in every manifest
   * (none when empty): a Kubernetes 1.5 control plane reads etcd2.
   */
  public static ControlPlaneStandIns attach(Sandbox sandbox, String storageBackend)
      throws IOException {
    ControlPlaneStandIns result = new ControlPlaneStandIns();
    ClusterSpec cluster = sandbox.cluster();
    List<String> servers = cluster.members().stream().map(MemberSpec::clientUrl).toList();
    List<ControlPlaneHost> hosts = new ArrayList<>();
    for (MemberSpec member : cluster.members()) {
      Path manifest =
          sandbox.hostRoot(member.name()).resolve("etc/kubernetes/manifests/kube-apiserver.yaml");
      Files.createDirectories(manifest.getParent());
      Files.writeString(
          manifest, manifest(member, servers, storageBackend, etcdClientTls(sandbox, member)));
      KubeApiServerStandIn standIn = new KubeApiServerStandIn(manifest);
      result.standIns.put("cp-" + member.name(), standIn);
      result.manifests.put("cp-" + member.name(), manifest);
      hosts.add(
          new ControlPlaneHost(
              "cp-" + member.name(),
              member.host(),
              member.sshPort(),
              manifest.toString(),
              standIn.healthUrl()));
    }
    Inventory inventory = sandbox.inventory();
    Map<String, ClusterSpec> clusters = new LinkedHashMap<>(inventory.clusters());
    clusters.put(
        cluster.name(),
        new ClusterSpec(
            cluster.name(),
            cluster.members(),
            cluster.service(),
            cluster.ssh(),
            cluster.tls(),
            cluster.backupDir(),
            hosts,
            cluster.backup()));
    InventoryLoader.write(new Inventory(inventory.releases(), clusters), sandbox.inventoryFile());
    return result;
  }

  /**
   * A TLS sandbox's kube-apiserver talks to etcd with a client certificate, as kubeadm sets it up:
   * the sandbox's client certificate copied to the host's /etc/kubernetes/pki, and the flags that
   * name it. Empty for an http sandbox.
   */
  private static List<String> etcdClientTls(Sandbox sandbox, MemberSpec member) throws IOException {
    if (sandbox.certificates().isEmpty()) return List.of();
    TestCertificates.Material material = sandbox.certificates().get();
    Path pki = sandbox.hostRoot(member.name()).resolve("etc/kubernetes/pki");
    Files.createDirectories(pki.resolve("etcd"));
    Path ca = Files.copy(material.caFile(), pki.resolve("etcd/ca.crt"));
    Path cert =
        Files.copy(
            Path.of(material.rsaClient().certFile()), pki.resolve("apiserver-etcd-client.crt"));
    Path key =
        Files.copy(
            Path.of(material.rsaClient().keyFile()),
            pki.resolve("apiserver-etcd-client.key"),
            java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
    return List.of("--etcd-cafile=" + ca, "--etcd-certfile=" + cert, "--etcd-keyfile=" + key);
  }

  public Path manifest(String controlPlaneHost) {
    return manifests.get(controlPlaneHost);
  }

  public KubeApiServerStandIn standIn(String controlPlaneHost) {
    return standIns.get(controlPlaneHost);
  }

  /** Control-plane host names, cp-m1, cp-m2, ... */
  public List<String> hosts() {
    return List.copyOf(standIns.keySet());
  }

  /** Trimmed from what kubeadm writes, with a comment, so that tests can see nothing else moves. */
  static String manifest(
      MemberSpec member, List<String> servers, String storageBackend, List<String> extraArgs) {
    return """
        apiVersion: v1
        kind: Pod
        metadata:
          # written by kubeadm; edited by etcd-runbooks only on the --etcd-servers line
          labels:
            component: kube-apiserver
            tier: control-plane
          name: kube-apiserver
          namespace: kube-system
        spec:
          containers:
          - command:
            - kube-apiserver
            - --advertise-address=%s
            - --allow-privileged=true
            - --etcd-servers=%s
            - --secure-port=6443
        %s    image: registry.k8s.io/kube-apiserver:v1.31.4
            name: kube-apiserver
          hostNetwork: true
        """
        .formatted(
            member.host(),
            String.join(",", servers),
            (storageBackend.isEmpty() ? "" : "    - --storage-backend=" + storageBackend + "\n")
                + extraArgs.stream().map(a -> "    - " + a + "\n").collect(Collectors.joining()));
  }

  @Override
  public void close() {
    standIns.values().forEach(KubeApiServerStandIn::close);
  }
}
