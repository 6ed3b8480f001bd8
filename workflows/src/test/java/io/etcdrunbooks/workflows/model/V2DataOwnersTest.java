package io.etcdrunbooks.workflows.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class V2DataOwnersTest {

  @Test
  void flannelCalicoAndKubernetesAreNamedAndAnyOtherPrefixIsUnknown() {
    Map<String, Long> left =
        new TreeMap<>(Map.of("/coreos.com", 2L, "/calico", 3L, "/skydns", 1L, "/registry", 4L));

    assertThat(V2DataOwners.describe(left))
        .isEqualTo(
            "/calico: 3 keys, likely Calico (its etcd v2 datastore); /coreos.com: 2 keys, likely"
                + " flannel (its default --etcd-prefix /coreos.com/network); /registry: 4 keys,"
                + " likely Kubernetes (kube-apiserver's default --etcd-prefix); /skydns: 1 keys,"
                + " owner unknown");
  }

  @Test
  void theTopLevelPrefixIsTheFirstPathSegment() {
    assertThat(V2DataOwners.topPrefix("/coreos.com/network/subnets/10.244.1.0-24"))
        .isEqualTo("/coreos.com");
    assertThat(V2DataOwners.topPrefix("/lonely")).isEqualTo("/lonely");
  }
}
