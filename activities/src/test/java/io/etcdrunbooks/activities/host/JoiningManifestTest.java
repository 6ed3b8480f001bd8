package io.etcdrunbooks.activities.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.inventory.MemberSpec;
import org.junit.jupiter.api.Test;

class JoiningManifestTest {

  private static final MemberSpec PEER =
      new MemberSpec(
          "cp-1",
          "10.0.0.1",
          0,
          "https://10.0.0.1:2379",
          "https://10.0.0.1:2380",
          "/var/lib/etcd",
          null,
          null);
  private static final MemberSpec NEW =
      new MemberSpec(
          "cp-4",
          "10.0.0.4",
          0,
          "https://10.0.0.4:2379",
          "https://10.0.0.4:2380",
          "/data/etcd",
          null,
          null);

  /** Trimmed from what kubeadm writes for a stacked etcd member. */
  private static final String KUBEADM =
      """
      apiVersion: v1
      kind: Pod
      metadata:
        annotations:
          kubeadm.kubernetes.io/etcd.advertise-client-urls: https://10.0.0.1:2379
        name: etcd
        namespace: kube-system
      spec:
        containers:
        - command:
          - etcd
          - --advertise-client-urls=https://10.0.0.1:2379
          - --cert-file=/etc/kubernetes/pki/etcd/server.crt
          - --data-dir=/var/lib/etcd
          - --initial-advertise-peer-urls=https://10.0.0.1:2380
          - --initial-cluster=cp-1=https://10.0.0.1:2380
          - --listen-client-urls=https://127.0.0.1:2379,https://10.0.0.1:2379
          - --listen-peer-urls=https://10.0.0.1:2380
          - --name=cp-1
          image: registry.k8s.io/etcd:3.5.16-0
          name: etcd
          volumeMounts:
          - mountPath: /var/lib/etcd
            name: etcd-data
        volumes:
        - hostPath:
            path: /var/lib/etcd
            type: DirectoryOrCreate
          name: etcd-data
      """;

  @Test
  void aPeersKubeadmManifestBecomesTheNewMembersJoiningTheExistingCluster() {
    String joined =
        JoiningManifest.from(
            KUBEADM,
            PEER,
            NEW,
            "cp-1=https://10.0.0.1:2380,cp-4=https://10.0.0.4:2380",
            "registry.k8s.io/etcd:3.5.30-0");

    assertThat(joined)
        .contains(
            "kubeadm.kubernetes.io/etcd.advertise-client-urls: https://10.0.0.4:2379",
            "- --advertise-client-urls=https://10.0.0.4:2379\n",
            "- --listen-client-urls=https://127.0.0.1:2379,https://10.0.0.4:2379\n",
            "- --initial-advertise-peer-urls=https://10.0.0.4:2380\n",
            "- --initial-cluster=cp-1=https://10.0.0.1:2380,cp-4=https://10.0.0.4:2380\n",
            "- --name=cp-4\n    - --initial-cluster-state=existing\n",
            "- --data-dir=/data/etcd\n",
            "- mountPath: /data/etcd\n",
            "path: /data/etcd\n",
            "- --cert-file=/etc/kubernetes/pki/etcd/server.crt\n",
            "image: registry.k8s.io/etcd:3.5.30-0\n")
        .doesNotContain("10.0.0.1:2379", "/var/lib/etcd", "--name=cp-1");
    assertThat(joined.lines().count()).isEqualTo(KUBEADM.lines().count() + 1);
  }

  @Test
  void aManifestWithoutANameFlagIsRefused() {
    assertThatThrownBy(
            () ->
                JoiningManifest.withFlag(
                    "spec:\n  containers: []\n", "initial-cluster-state", "existing"))
        .hasMessageContaining("no '- --name=...'");
  }
}
