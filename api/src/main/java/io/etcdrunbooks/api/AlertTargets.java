package io.etcdrunbooks.api;

import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.InvalidClusterException;
import io.etcdrunbooks.inventory.Inventory;
import io.etcdrunbooks.inventory.MemberSpec;
import java.net.URI;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Finds the inventory cluster and member an alert is about, from its labels. */
final class AlertTargets {

  private AlertTargets() {}

  /** The cluster and member an alert names, or why it names none. */
  sealed interface Resolution permits Found, NotFound {}

  record Found(String cluster, String member) implements Resolution {}

  record NotFound(String cluster, String member, String reason) implements Resolution {}

  static Resolution resolve(
      Inventory inventory, Map<String, String> labels, String clusterLabel, String memberLabel) {
    String clusterName = labels.get(clusterLabel);
    String memberValue = labels.get(memberLabel);
    List<String> clusters = inventory.clusters().keySet().stream().sorted().toList();
    if (clusterName == null || clusterName.isBlank()) {
      return new NotFound(
          clusterName,
          memberValue,
          "the alert has no label '"
              + clusterLabel
              + "' (runbooks.alerts.cluster-label); the inventory has clusters "
              + clusters);
    }
    ClusterSpec cluster = inventory.clusters().get(clusterName);
    if (cluster == null && inventory.invalidClusters().containsKey(clusterName)) {
      return new NotFound(
          clusterName,
          memberValue,
          new InvalidClusterException(
                  clusterName, inventory.invalidClusters().get(clusterName).problems())
              .getMessage());
    }
    if (cluster == null) {
      return new NotFound(
          clusterName,
          memberValue,
          "label "
              + clusterLabel
              + "='"
              + clusterName
              + "' names no cluster in the inventory; it has clusters "
              + clusters);
    }
    if (memberValue == null || memberValue.isBlank()) {
      return new NotFound(
          clusterName,
          memberValue,
          "the alert has no label '"
              + memberLabel
              + "' (runbooks.alerts.member-label); cluster '"
              + clusterName
              + "' has members "
              + describe(cluster));
    }
    List<MemberSpec> matches =
        cluster.members().stream().filter(m -> m.name().equals(memberValue)).toList();
    if (matches.isEmpty()) {
      matches =
          cluster.members().stream()
              .filter(
                  m ->
                      memberValue.equalsIgnoreCase(authority(m.clientUrl()))
                          || memberValue.equalsIgnoreCase(authority(m.peerUrl())))
              .toList();
    }
    if (matches.size() == 1) {
      return new Found(clusterName, matches.get(0).name());
    }
    String problem =
        matches.isEmpty()
            ? "names no member"
            : "matches more than one member " + matches.stream().map(MemberSpec::name).toList();
    return new NotFound(
        clusterName,
        memberValue,
        "label "
            + memberLabel
            + "='"
            + memberValue
            + "' "
            + problem
            + " of cluster '"
            + clusterName
            + "' (by name, or host:port of a client or peer URL); it has "
            + describe(cluster));
  }

  private static String describe(ClusterSpec cluster) {
    return cluster.members().stream()
        .map(m -> m.name() + " (" + authority(m.clientUrl()) + ", " + authority(m.peerUrl()) + ")")
        .toList()
        .toString();
  }

  /**
   * host:port of a URL, with the scheme's default port when it has none; empty when it is not a
   * URL.
   */
  static String authority(String url) {
    if (url == null || url.isBlank()) {
      return "";
    }
    try {
      URI uri = URI.create(url.strip());
      if (uri.getHost() == null) {
        return "";
      }
      int port = uri.getPort() >= 0 ? uri.getPort() : "https".equals(uri.getScheme()) ? 443 : 80;
      String host = uri.getHost().toLowerCase(Locale.ROOT);
      return host + ":" + port;
    } catch (IllegalArgumentException e) {
      return "";
    }
  }
}
