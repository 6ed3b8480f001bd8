package io.etcdrunbooks.activities.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.etcdrunbooks.activities.targets.ClusterTargets;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.Inventory;
import io.etcdrunbooks.inventory.KubernetesSpec;
import io.etcdrunbooks.inventory.ReleaseSource;
import io.etcdrunbooks.inventory.ServiceSpec;
import io.etcdrunbooks.testkit.KubernetesApiStandIn;
import io.etcdrunbooks.workflows.activities.KubernetesActivities.KubeadmConfigChange;
import io.etcdrunbooks.workflows.activities.KubernetesActivities.KubeadmEtcdEndpointsRequest;
import io.etcdrunbooks.workflows.activities.KubernetesActivities.KubeadmEtcdImageRequest;
import io.etcdrunbooks.workflows.activities.KubernetesActivities.NodeWatch;
import io.etcdrunbooks.workflows.activities.KubernetesActivities.WatchNodesRequest;
import io.etcdrunbooks.workflows.common.FailureType;
import io.temporal.failure.ApplicationFailure;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * kubeadm-config and the nodes through a Kubernetes API stand-in over HTTPS, with a bearer token or
 * a client certificate from a kubeconfig file.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class KubernetesActivitiesTest {

  /** As kubeadm v1.31 writes it (v1beta4), a mirror as the top-level imageRepository. */
  static final String STACKED =
      """
      apiServer:
        certSANs:
        - 10.0.0.10
        extraArgs:
        - name: authorization-mode
          value: Node,RBAC
      apiVersion: kubeadm.k8s.io/v1beta4
      caCertificateValidityPeriod: 87600h0m0s
      certificatesDir: /etc/kubernetes/pki
      clusterName: kubernetes
      controlPlaneEndpoint: cp.example:6443
      controllerManager: {}
      dns: {}
      etcd:
        local:
          dataDir: /var/lib/etcd
          extraArgs:
          - name: listen-metrics-urls
            value: http://0.0.0.0:2381
      imageRepository: mirror.example:5000/k8s
      kind: ClusterConfiguration
      kubernetesVersion: v1.31.4
      networking:
        dnsDomain: cluster.local
        podSubnet: 10.244.0.0/16
        serviceSubnet: 10.96.0.0/12
      proxy: {}
      scheduler: {}
      """;

  static final String EXTERNAL =
      """
      apiVersion: kubeadm.k8s.io/v1beta3
      certificatesDir: /etc/kubernetes/pki
      clusterName: kubernetes
      etcd:
        external:
          caFile: /etc/kubernetes/pki/etcd/ca.crt
          certFile: /etc/kubernetes/pki/apiserver-etcd-client.crt
          endpoints:
          - https://10.0.0.1:2379
          - https://10.0.0.2:2379
          - https://10.0.0.3:2379
          keyFile: /etc/kubernetes/pki/apiserver-etcd-client.key
      imageRepository: registry.k8s.io
      kind: ClusterConfiguration
      kubernetesVersion: v1.28.15
      networking:
        podSubnet: 10.244.0.0/16
      """;

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  @TempDir Path dir;

  @Test
  void setsTheEtcdImageTagWithTheTokenKeepsEveryOtherFieldAndThenHasNothingToDo() throws Exception {
    try (KubernetesApiStandIn api = KubernetesApiStandIn.start(dir, STACKED)) {
      KubernetesActivitiesImpl kubernetes =
          activities(api.tokenKubeconfig(), "mirror.example:5000/k8s");

      KubeadmConfigChange change =
          kubernetes.setKubeadmEtcdImage(new KubeadmEtcdImageRequest("c", "3.5.16"));

      assertThat(change.outcome()).isEqualTo(KubeadmConfigChange.CHANGED);
      assertThat(change.detail()).contains("-> mirror.example:5000/k8s/etcd:3.5.16-0");
      // written back in its order, list items at their key's indentation, as kubeadm writes it
      assertThat(api.clusterConfiguration())
          .startsWith(STACKED.substring(0, STACKED.indexOf("  extraArgs:")))
          .contains("      value: http://0.0.0.0:2381\n    imageTag: 3.5.16-0\n");
      JsonNode after = YAML.readTree(api.clusterConfiguration());
      assertThat(after.at("/etcd/local/imageTag").asText()).isEqualTo("3.5.16-0");
      // the top-level repository is kubeadm's for etcd too: no etcd.local.imageRepository
      assertThat(after.at("/etcd/local").has("imageRepository")).isFalse();
      ((ObjectNode) after.at("/etcd/local")).remove("imageTag");
      assertThat(after).isEqualTo(YAML.readTree(STACKED));

      assertThat(
              kubernetes.setKubeadmEtcdImage(new KubeadmEtcdImageRequest("c", "3.5.16")).outcome())
          .isEqualTo(KubeadmConfigChange.UNCHANGED);
      assertThat(api.requests())
          .containsExactly(
              "GET " + KubernetesActivitiesImpl.KUBEADM_CONFIG,
              "PUT " + KubernetesActivitiesImpl.KUBEADM_CONFIG,
              "GET " + KubernetesActivitiesImpl.KUBEADM_CONFIG);
    }
  }

  @Test
  void aRepositoryOtherThanKubeadmsIsSetForEtcdAloneWithTheClientCertificate() throws Exception {
    try (KubernetesApiStandIn api = KubernetesApiStandIn.start(dir, STACKED)) {
      KubeadmConfigChange change =
          activities(api.certificateKubeconfig(), "other.example/etcd-images")
              .setKubeadmEtcdImage(new KubeadmEtcdImageRequest("c", "3.4.23"));

      assertThat(change.outcome()).isEqualTo(KubeadmConfigChange.CHANGED);
      JsonNode after = YAML.readTree(api.clusterConfiguration());
      assertThat(after.at("/etcd/local/imageRepository").asText())
          .isEqualTo("other.example/etcd-images");
      assertThat(after.at("/etcd/local/imageTag").asText()).isEqualTo("3.4.23-0");
      assertThat(after.at("/imageRepository").asText()).isEqualTo("mirror.example:5000/k8s");
    }
  }

  @Test
  void aWriteBetweenItsReadAndItsPutIsReadAgainAndAWrongTokenIsRefusedWithoutShowingIt()
      throws Exception {
    try (KubernetesApiStandIn api = KubernetesApiStandIn.start(dir, EXTERNAL)) {
      Path kubeconfig = api.tokenKubeconfig();
      KubernetesActivitiesImpl kubernetes = activities(kubeconfig, "registry.k8s.io");
      List<String> endpoints = List.of("https://10.0.0.1:2379", "https://10.0.0.4:2379");
      // someone edits kubeadm-config between the runbook's read and its PUT
      api.writtenBySomeoneElseBeforeNextPut(EXTERNAL.replace("v1.28.15", "v1.28.16"));

      KubeadmConfigChange change =
          kubernetes.setKubeadmEtcdEndpoints(new KubeadmEtcdEndpointsRequest("c", endpoints));

      assertThat(change.outcome()).isEqualTo(KubeadmConfigChange.CHANGED);
      JsonNode after = YAML.readTree(api.clusterConfiguration());
      assertThat(after.at("/etcd/external/endpoints"))
          .extracting(JsonNode::asText)
          .containsExactlyElementsOf(endpoints);
      assertThat(after.at("/kubernetesVersion").asText()).isEqualTo("v1.28.16");
      assertThat(api.requests())
          .containsExactly(
              "GET " + KubernetesActivitiesImpl.KUBEADM_CONFIG,
              "PUT " + KubernetesActivitiesImpl.KUBEADM_CONFIG + " 409",
              "GET " + KubernetesActivitiesImpl.KUBEADM_CONFIG,
              "PUT " + KubernetesActivitiesImpl.KUBEADM_CONFIG);
      assertThat(after.at("/etcd/external/keyFile").asText())
          .isEqualTo("/etc/kubernetes/pki/apiserver-etcd-client.key");

      String token = Files.readString(kubeconfig).replaceAll("(?s).*token: (\\w+).*", "$1");
      Files.writeString(kubeconfig, Files.readString(kubeconfig).replace(token, "0" + token));
      assertThatThrownBy(
              () ->
                  kubernetes.setKubeadmEtcdEndpoints(
                      new KubeadmEtcdEndpointsRequest("c", List.of("https://10.0.0.9:2379"))))
          .isInstanceOf(ApplicationFailure.class)
          .satisfies(
              e -> {
                ApplicationFailure f = (ApplicationFailure) e;
                assertThat(f.getType()).isEqualTo(FailureType.KubeadmConfigNotUpdated.name());
                assertThat(f.isNonRetryable()).isTrue();
                assertThat(f.getOriginalMessage()).contains("HTTP 401").doesNotContain(token);
              });
    }
  }

  @Test
  void stackedEtcdHasNoEndpointsToSetAndAClusterWithoutKubeconfigIsSkippedSayingWhatToDo()
      throws Exception {
    try (KubernetesApiStandIn api = KubernetesApiStandIn.start(dir, STACKED)) {
      KubeadmConfigChange stacked =
          activities(api.tokenKubeconfig(), "registry.k8s.io")
              .setKubeadmEtcdEndpoints(
                  new KubeadmEtcdEndpointsRequest("c", List.of("https://10.0.0.4:2379")));
      assertThat(stacked.outcome()).isEqualTo(KubeadmConfigChange.UNCHANGED);
      assertThat(stacked.detail()).contains("stacked etcd");
      assertThat(api.requests()).noneMatch(r -> r.startsWith("PUT"));
    }
    KubeadmConfigChange none =
        activities(null, "registry.k8s.io")
            .setKubeadmEtcdImage(new KubeadmEtcdImageRequest("c", "3.5.16"));
    assertThat(none.skipped()).isTrue();
    assertThat(none.detail()).contains("no kubernetes.kubeconfig", "etcd.local.imageTag: 3.5.16-0");
  }

  @Test
  void aNodeThatGoesNotReadyDuringTheWatchFailsItNamingTheNodeAndTheCluster() throws Exception {
    try (KubernetesApiStandIn api = KubernetesApiStandIn.start(dir, null)) {
      api.node("cp-1", true);
      api.node("worker-1", true);
      KubernetesActivitiesImpl kubernetes =
          activities(api.certificateKubeconfig(), "registry.k8s.io");
      NodeWatch quiet = kubernetes.watchNodes(new WatchNodesRequest("c", 0));
      assertThat(quiet.checked()).isTrue();
      assertThat(quiet.detail()).contains("2 nodes, at most 0 NotReady");

      Thread flap =
          new Thread(
              () -> {
                try {
                  Thread.sleep(1500);
                } catch (InterruptedException e) {
                  return;
                }
                api.node("worker-1", false);
              });
      flap.start();
      assertThatThrownBy(() -> kubernetes.watchNodes(new WatchNodesRequest("c", 30)))
          .isInstanceOf(ApplicationFailure.class)
          .hasMessageContaining("cluster 'c': 1 of 2 nodes NotReady")
          .hasMessageContaining("worker-1 (Ready=Unknown: NodeStatusUnknown)");
      flap.join();
    }
  }

  private static KubernetesActivitiesImpl activities(Path kubeconfig, String imageRepository) {
    ClusterSpec cluster =
        new ClusterSpec(
                "c",
                List.of(),
                new ServiceSpec(
                    ServiceSpec.STATIC_POD, null, null, null, null, null, null, imageRepository),
                null,
                null,
                "/tmp",
                List.of(),
                null)
            .withKubernetes(
                kubeconfig == null ? null : new KubernetesSpec(kubeconfig.toString(), 0));
    Inventory inventory =
        new Inventory(new ReleaseSource("/tmp", null, null, null), Map.of("c", cluster));
    return new KubernetesActivitiesImpl(ClusterTargets.etcdOnly(() -> inventory));
  }
}
