package io.etcdrunbooks.activities.migrate;

import io.etcdrunbooks.activities.etcd.V2Api;
import io.etcdrunbooks.workflows.activities.MigrationActivities.StoreComparison;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Every v2 key against its v3 counterpart: the migration's proof that v3 is v2's copy. */
final class StoreComparator {

  static final int NAMED = 10;

  private StoreComparator() {}

  static StoreComparison compare(List<V2Api.Node> v2, V3Keys v3) {
    List<String> problems = new ArrayList<>();
    Set<String> inV2 = new HashSet<>();
    for (V2Api.Node node : v2) {
      inV2.add(node.key());
      V3Keys.Entry entry = v3.keys().get(node.key());
      if (entry == null) {
        problems.add("key " + node.key() + " is in v2 but not in v3");
      } else if (!entry.value().equals(node.value())) {
        problems.add("key " + node.key() + " has another value in v3 than in v2");
      } else if (node.hasTtl() && entry.lease() == 0) {
        problems.add(
            "key " + node.key() + " has a TTL in v2 but no lease in v3: it would never expire");
      }
    }
    v3.keys().keySet().stream()
        .filter(key -> !inV2.contains(key))
        .forEach(key -> problems.add("key " + key + " is in v3 but not in v2"));
    long leased = v3.keys().values().stream().filter(e -> e.lease() != 0).count();
    return new StoreComparison(
        v2.size(),
        v3.keys().size(),
        Prefixes.count(v2.stream().map(V2Api.Node::key)),
        Prefixes.count(v3.keys().keySet().stream()),
        leased,
        named(problems));
  }

  /** The first {@link #NAMED} problems, and how many more there are. */
  private static List<String> named(List<String> problems) {
    if (problems.size() <= NAMED) return problems;
    List<String> first = new ArrayList<>(problems.subList(0, NAMED));
    first.add("and " + (problems.size() - NAMED) + " more keys like these");
    return first;
  }
}
