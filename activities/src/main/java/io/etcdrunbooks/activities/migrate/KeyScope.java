package io.etcdrunbooks.activities.migrate;

import io.etcdrunbooks.activities.etcd.V2Api;
import io.etcdrunbooks.workflows.activities.MigrationActivities.MigrationScope;
import io.etcdrunbooks.workflows.model.V2DataOwners;
import java.util.List;
import java.util.Map;

/**
 * The keys a migration moves: those under the kube-apiservers' {@code --etcd-prefix}. Every other
 * key of a shared v2 store (flannel's /coreos.com/network, Calico's /calico/v1) belongs to a client
 * that speaks v2 only, so it stays in v2 as it is. A null prefix (runs started before the prefix
 * was read) takes in every key, as those runs did.
 */
record KeyScope(String prefix) {

  static KeyScope of(MigrationScope scope) {
    return new KeyScope(scope.etcdPrefix());
  }

  boolean contains(String key) {
    return prefix == null || key.equals(prefix) || key.startsWith(prefix + "/");
  }

  List<V2Api.Node> within(List<V2Api.Node> nodes) {
    return nodes.stream().filter(n -> contains(n.key())).toList();
  }

  /** Keys outside the scope per top-level prefix. */
  Map<String, Long> outside(List<V2Api.Node> nodes) {
    return Prefixes.countBy(
        nodes.stream().map(V2Api.Node::key).filter(k -> !contains(k)), V2DataOwners::topPrefix);
  }
}
