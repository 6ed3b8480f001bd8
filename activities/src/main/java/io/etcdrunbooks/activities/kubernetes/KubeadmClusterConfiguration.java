package io.etcdrunbooks.activities.kubernetes;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * kubeadm's ClusterConfiguration (v1beta3 and v1beta4 alike), the YAML in the {@code
 * ClusterConfiguration} key of {@code kube-system/kubeadm-config}. Only the fields the runbooks own
 * are read and set: {@code etcd.local.imageRepository} and {@code etcd.local.imageTag} (stacked
 * etcd, kubeadm's static pods) and {@code etcd.external.endpoints}; every other field is written
 * back as it was read, in its order. In both versions nothing under {@code etcd.local} lists the
 * members (kubeadm reads them from etcd itself), so stacked etcd has no endpoints to keep.
 */
final class KubeadmClusterConfiguration {

  /** kubeadm's default top-level imageRepository. */
  static final String DEFAULT_IMAGE_REPOSITORY = "registry.k8s.io";

  // written as kubeadm (sigs.k8s.io/yaml) writes it: no document marker, plain scalars, list items
  // at their key's indentation
  private static final ObjectMapper YAML =
      new ObjectMapper(
          YAMLFactory.builder()
              .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
              .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
              .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
              .build());

  private final ObjectNode root;

  private KubeadmClusterConfiguration(ObjectNode root) {
    this.root = root;
  }

  static KubeadmClusterConfiguration parse(String yaml) {
    try {
      JsonNode read = YAML.readTree(yaml);
      if (!(read instanceof ObjectNode object))
        throw new IllegalArgumentException("ClusterConfiguration is not a YAML mapping");
      return new KubeadmClusterConfiguration(object);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalArgumentException(
          "ClusterConfiguration is not valid YAML: " + e.getOriginalMessage());
    }
  }

  String yaml() {
    try {
      return YAML.writeValueAsString(root);
    } catch (IOException e) {
      throw new IllegalStateException("cannot write ClusterConfiguration", e);
    }
  }

  boolean externalEtcd() {
    return root.path("etcd").has("external");
  }

  String imageTag() {
    return root.path("etcd").path("local").path("imageTag").asText("");
  }

  /** The repository kubeadm pulls etcd from: etcd.local's own, else the top-level one. */
  String etcdImageRepository() {
    String local = root.path("etcd").path("local").path("imageRepository").asText("");
    if (!local.isEmpty()) return local;
    String top = root.path("imageRepository").asText("");
    return top.isEmpty() ? DEFAULT_IMAGE_REPOSITORY : top;
  }

  List<String> externalEndpoints() {
    List<String> endpoints = new ArrayList<>();
    root.path("etcd").path("external").path("endpoints").forEach(e -> endpoints.add(e.asText()));
    return endpoints;
  }

  /**
   * Sets etcd.local.imageTag, and etcd.local.imageRepository only when the repository kubeadm would
   * use for etcd is another (the top-level one, which all control-plane images share, is left).
   */
  void setEtcdImage(String repository, String tag) {
    ObjectNode local = object(object(root, "etcd"), "local");
    if (!repository.equals(etcdImageRepository())) local.put("imageRepository", repository);
    local.put("imageTag", tag);
  }

  void setExternalEndpoints(List<String> endpoints) {
    ArrayNode list = object(object(root, "etcd"), "external").putArray("endpoints");
    endpoints.forEach(list::add);
  }

  private static ObjectNode object(ObjectNode parent, String field) {
    JsonNode child = parent.get(field);
    if (child instanceof ObjectNode object) return object;
    return parent.putObject(field);
  }
}
