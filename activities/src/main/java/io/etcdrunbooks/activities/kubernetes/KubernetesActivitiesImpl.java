package io.etcdrunbooks.activities.kubernetes;

import static io.etcdrunbooks.workflows.activities.KubernetesActivities.KubeadmConfigChange.CHANGED;
import static io.etcdrunbooks.workflows.activities.KubernetesActivities.KubeadmConfigChange.SKIPPED;
import static io.etcdrunbooks.workflows.activities.KubernetesActivities.KubeadmConfigChange.UNCHANGED;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.etcdrunbooks.activities.support.Heartbeats;
import io.etcdrunbooks.activities.support.WaitDeadline;
import io.etcdrunbooks.activities.targets.ClusterTargets;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.ServiceSpec;
import io.etcdrunbooks.workflows.activities.KubernetesActivities;
import io.etcdrunbooks.workflows.common.FailureType;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@link KubernetesActivities} over the Kubernetes API, with each cluster's kubeconfig. */
public final class KubernetesActivitiesImpl implements KubernetesActivities {

  private static final Logger log = LoggerFactory.getLogger(KubernetesActivitiesImpl.class);
  static final String KUBEADM_CONFIG = "/api/v1/namespaces/kube-system/configmaps/kubeadm-config";
  private static final String KEY = "ClusterConfiguration";
  private static final int CONFLICT_ATTEMPTS = 5;
  private static final long POLL_MILLIS = 1000;

  private final ClusterTargets targets;

  public KubernetesActivitiesImpl(ClusterTargets targets) {
    this.targets = targets;
  }

  @Override
  public KubeadmConfigChange setKubeadmEtcdImage(KubeadmEtcdImageRequest request) {
    ClusterSpec cluster = targets.cluster(request.cluster());
    String image = cluster.service().imageOf(request.version());
    int colon = image.lastIndexOf(':');
    String repository = colon > 0 ? image.substring(0, colon) : image;
    String tag = colon > 0 ? image.substring(colon + 1) : "";
    String byHand = "etcd.local.imageTag: %s%s".formatted(tag, repositoryByHand(repository));
    if (!ServiceSpec.STATIC_POD.equals(cluster.service().kind()))
      return skipped(cluster, "its members are not static pods: kubeadm runs no etcd image");
    if (!repository.endsWith("/etcd") || tag.isEmpty())
      return skipped(
          cluster,
          "the inventory's image "
              + image
              + " is not <repository>/etcd:<tag>, which is all kubeadm can name; set the image"
              + " kubeadm uses by hand");
    String kubeadmRepository = repository.substring(0, repository.length() - "/etcd".length());
    return edit(
        cluster,
        "set " + byHand,
        config -> {
          if (config.externalEtcd())
            return Edit.none("ClusterConfiguration uses external etcd: it names no etcd image");
          String before =
              config.etcdImageRepository()
                  + "/etcd:"
                  + (config.imageTag().isEmpty() ? "<kubeadm's default tag>" : config.imageTag());
          if (config.imageTag().equals(tag)
              && config.etcdImageRepository().equals(kubeadmRepository)) return Edit.ALREADY;
          config.setEtcdImage(kubeadmRepository, tag);
          return Edit.made("etcd image " + before + " -> " + kubeadmRepository + "/etcd:" + tag);
        });
  }

  private static String repositoryByHand(String repository) {
    return repository.endsWith("/etcd")
        ? " (and etcd.local.imageRepository: "
            + repository.substring(0, repository.length() - 5)
            + " if kubeadm's differs)"
        : "";
  }

  @Override
  public KubeadmConfigChange setKubeadmEtcdEndpoints(KubeadmEtcdEndpointsRequest request) {
    ClusterSpec cluster = targets.cluster(request.cluster());
    List<String> endpoints = List.copyOf(request.endpoints());
    return edit(
        cluster,
        "if its ClusterConfiguration uses external etcd, set etcd.external.endpoints: " + endpoints,
        config -> {
          if (!config.externalEtcd())
            return Edit.none(
                "stacked etcd: ClusterConfiguration lists no members (kubeadm reads them from"
                    + " etcd)");
          List<String> before = config.externalEndpoints();
          if (before.equals(endpoints)) return Edit.ALREADY;
          config.setExternalEndpoints(endpoints);
          return Edit.made("etcd.external.endpoints " + before + " -> " + endpoints);
        });
  }

  /**
   * Reads kubeadm-config, lets {@code change} edit its ClusterConfiguration and writes it back with
   * the resourceVersion read; a 409 (someone wrote meanwhile) reads again.
   *
   * @param change edits the configuration and says what it did
   */
  private KubeadmConfigChange edit(
      ClusterSpec cluster, String byHand, Function<KubeadmClusterConfiguration, Edit> change) {
    if (cluster.kubernetes() == null)
      return skipped(
          cluster,
          "the inventory names no kubernetes.kubeconfig for it: "
              + byHand
              + " in kube-system/kubeadm-config by hand (kubectl -n kube-system edit cm"
              + " kubeadm-config), or the next kubeadm join --control-plane or kubeadm upgrade"
              + " undoes this change");
    KubeApiClient api = client(cluster, FailureType.KubeadmConfigNotUpdated);
    String where = "kube-system/kubeadm-config of cluster '" + cluster.name() + "'";
    for (int attempt = 1; ; attempt++) {
      JsonNode configMap;
      try {
        configMap = api.get(KUBEADM_CONFIG);
      } catch (KubeApiClient.ApiError e) {
        if (e.status == 404)
          return skipped(cluster, "it has no kube-system/kubeadm-config: not a kubeadm cluster");
        throw failure(where, "read", e);
      } catch (IOException e) {
        throw failure(where, "read", e);
      }
      String yaml = configMap.path("data").path(KEY).asText("");
      if (yaml.isEmpty())
        throw FailureType.KubeadmConfigNotUpdated.nonRetryable(
            where + " has no data." + KEY + "; " + byHand + " by hand");
      KubeadmClusterConfiguration config;
      try {
        config = KubeadmClusterConfiguration.parse(yaml);
      } catch (IllegalArgumentException e) {
        throw FailureType.KubeadmConfigNotUpdated.nonRetryable(
            where + ": " + e.getMessage() + "; " + byHand + " by hand");
      }
      Edit edit = change.apply(config);
      if (!edit.made()) {
        log.info("{}: {}", where, edit.what());
        return new KubeadmConfigChange(UNCHANGED, where + ": " + edit.what());
      }
      String changed = edit.what();
      ((ObjectNode) configMap.path("data")).put(KEY, config.yaml());
      try {
        api.put(KUBEADM_CONFIG, configMap);
        log.info("{}: {}", where, changed);
        return new KubeadmConfigChange(CHANGED, where + ": " + changed);
      } catch (KubeApiClient.ApiError e) {
        if (!e.conflict() || attempt >= CONFLICT_ATTEMPTS) throw failure(where, "write", e);
        log.info("{}: written meanwhile by someone else; reading it again", where);
      } catch (IOException e) {
        throw failure(where, "write", e);
      }
    }
  }

  @Override
  public NodeWatch watchNodes(WatchNodesRequest request) {
    ClusterSpec cluster = targets.cluster(request.cluster());
    if (cluster.kubernetes() == null)
      return new NodeWatch(
          false,
          "cluster '"
              + cluster.name()
              + "': no kubernetes.kubeconfig in the inventory, its nodes were not checked");
    int max = cluster.kubernetes().effectiveMaxNotReadyNodes();
    KubeApiClient api = client(cluster, FailureType.NodesNotReady);
    WaitDeadline deadline = WaitDeadline.afterSeconds(Math.max(0, request.seconds()));
    int nodes = 0;
    int worst = 0;
    String lastError = "";
    boolean looked = false;
    while (true) {
      try {
        JsonNode list = api.get("/api/v1/nodes");
        List<String> notReady = new ArrayList<>();
        nodes = list.path("items").size();
        for (JsonNode node : list.path("items")) {
          String why = notReady(node);
          if (why != null) notReady.add(node.path("metadata").path("name").asText("?") + why);
        }
        looked = true;
        worst = Math.max(worst, notReady.size());
        if (notReady.size() > max)
          throw FailureType.NodesNotReady.nonRetryable(
              ("cluster '%s': %d of %d nodes NotReady (at most %d allowed,"
                      + " kubernetes.maxNotReadyNodes): %s. Next: look at those nodes' kubelets"
                      + " (kubectl describe node) before the next wave")
                  .formatted(
                      cluster.name(), notReady.size(), nodes, max, String.join("; ", notReady)));
        Heartbeats.beat(cluster.name() + ": " + nodes + " nodes, " + notReady.size() + " NotReady");
      } catch (KubeApiClient.ApiError e) {
        if (e.hopeless())
          throw FailureType.NodesNotReady.nonRetryable(
              "cluster '" + cluster.name() + "': cannot list nodes: " + e.getMessage());
        lastError = e.getMessage();
        Heartbeats.beat(cluster.name() + ": " + lastError);
      } catch (IOException e) {
        lastError = e.getClass().getSimpleName() + ": " + e.getMessage();
        Heartbeats.beat(cluster.name() + ": " + lastError);
      }
      if (deadline.passed()) break;
      Heartbeats.pause(POLL_MILLIS);
    }
    if (!looked)
      throw FailureType.NodesNotReady.nonRetryable(
          "cluster '"
              + cluster.name()
              + "': its Kubernetes API did not answer a list of nodes within "
              + request.seconds()
              + " s: "
              + lastError);
    return new NodeWatch(
        true,
        "cluster '%s': %d nodes, at most %d NotReady over %d s (allowed %d)"
            .formatted(cluster.name(), nodes, worst, request.seconds(), max));
  }

  /** What an edit of the ClusterConfiguration did: {@code made}, or nothing and why. */
  private record Edit(boolean made, String what) {
    static final Edit ALREADY = new Edit(false, "already says so");

    static Edit made(String what) {
      return new Edit(true, what);
    }

    static Edit none(String why) {
      return new Edit(false, why);
    }
  }

  /** Null when the node's Ready condition is True, else why not (" (Ready=False: reason)"). */
  static String notReady(JsonNode node) {
    for (JsonNode condition : node.path("status").path("conditions")) {
      if (!"Ready".equals(condition.path("type").asText())) continue;
      String status = condition.path("status").asText("Unknown");
      if (status.equals("True")) return null;
      return " (Ready=" + status + ": " + condition.path("reason").asText("") + ")";
    }
    return " (no Ready condition)";
  }

  private static KubeadmConfigChange skipped(ClusterSpec cluster, String why) {
    return new KubeadmConfigChange(
        SKIPPED, "kubeadm-config of cluster '" + cluster.name() + "' not touched: " + why);
  }

  private static ApplicationFailure failure(String where, String what, IOException e) {
    String message = "cannot " + what + " " + where + ": " + e.getMessage();
    if (e instanceof KubeApiClient.ApiError api && api.hopeless())
      return FailureType.KubeadmConfigNotUpdated.nonRetryable(
          message + ". Next: check the kubeconfig's rights (get and update of that ConfigMap)");
    return ApplicationFailure.newFailure(message, FailureType.KubeadmConfigNotUpdated.name());
  }

  /**
   * A client for the cluster's kubeconfig; one that cannot be used fails the step as {@code type}.
   */
  private static KubeApiClient client(ClusterSpec cluster, FailureType type) {
    try {
      return new KubeApiClient(Kubeconfig.load(Path.of(cluster.kubernetes().kubeconfig())));
    } catch (IllegalArgumentException e) {
      throw type.nonRetryable(
          "cluster '"
              + cluster.name()
              + "': "
              + e.getMessage()
              + "; fix the file or kubernetes.kubeconfig in the inventory");
    }
  }
}
