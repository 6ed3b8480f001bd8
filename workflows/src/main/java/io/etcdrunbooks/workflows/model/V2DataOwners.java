package io.etcdrunbooks.workflows.model;

import java.util.Map;
import java.util.stream.Collectors;

/**
 * Who likely wrote the keys under a top-level v2 prefix. Clusters of the v2 era often shared their
 * etcd between Kubernetes and the network plugins that spoke v2 only: flannel and Calico.
 */
public final class V2DataOwners {

  private static final Map<String, String> KNOWN =
      Map.of(
          "/registry", "Kubernetes (kube-apiserver's default --etcd-prefix)",
          "/coreos.com", "flannel (its default --etcd-prefix /coreos.com/network)",
          "/calico", "Calico (its etcd v2 datastore)");

  private V2DataOwners() {}

  /** "/coreos.com/network/config" -> "/coreos.com". */
  public static String topPrefix(String key) {
    int second = key.indexOf('/', 1);
    return second < 0 ? key : key.substring(0, second);
  }

  /** "likely flannel (...)", or "owner unknown". */
  public static String owner(String topPrefix) {
    String known = KNOWN.get(topPrefix);
    return known == null ? "owner unknown" : "likely " + known;
  }

  /** "/calico: 5 keys, likely Calico (...); /x: 1 keys, owner unknown". */
  public static String describe(Map<String, Long> keysByTopPrefix) {
    return keysByTopPrefix.entrySet().stream()
        .map(e -> "%s: %d keys, %s".formatted(e.getKey(), e.getValue(), owner(e.getKey())))
        .collect(Collectors.joining("; "));
  }
}
