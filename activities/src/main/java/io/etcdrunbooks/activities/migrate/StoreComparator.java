package io.etcdrunbooks.activities.migrate;

import io.etcdrunbooks.activities.etcd.V2Api;
import io.etcdrunbooks.workflows.activities.MigrationActivities.StoreComparison;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Every v2 key against its v3 counterpart: the migration's proof that v3 is v2's copy. Keys without
 * a TTL are compared exactly. Keys with one (events) expire on their own, in v2 by the leader's
 * SYNCs and in v3 by their lease, which the LEASES phase rounded up to the minute: an event v2 has
 * expired but v3 still holds under a lease, or one whose v2 expiry has passed, is expired, not
 * missing.
 */
final class StoreComparator {

  static final int NAMED = 10;

  private StoreComparator() {}

  static StoreComparison compare(List<V2Api.Node> v2, V3Keys v3, Instant now) {
    List<String> problems = new ArrayList<>();
    Set<String> inV2 = new HashSet<>();
    for (V2Api.Node node : v2) {
      inV2.add(node.key());
      V3Keys.Entry entry = v3.keys().get(node.key());
      if (entry == null) {
        if (!node.hasTtl() || node.expiresAt().isAfter(now)) {
          problems.add("key " + node.key() + " is in v2 but not in v3");
        }
      } else if (!entry.value().equals(node.value())) {
        problems.add("key " + node.key() + " has another value in v3 than in v2");
      } else if (node.hasTtl() && entry.lease() == 0) {
        problems.add(
            "key " + node.key() + " has a TTL in v2 but no lease in v3: it would never expire");
      }
    }
    v3.keys().entrySet().stream()
        .filter(e -> !inV2.contains(e.getKey()) && e.getValue().lease() == 0)
        .forEach(e -> problems.add("key " + e.getKey() + " is in v3 but not in v2"));
    long leased = v3.keys().values().stream().filter(e -> e.lease() != 0).count();
    return new StoreComparison(
        v2.size(),
        v3.keys().size(),
        Prefixes.count(v2.stream().filter(n -> !n.hasTtl()).map(V2Api.Node::key)),
        Prefixes.count(
            v3.keys().entrySet().stream()
                .filter(e -> e.getValue().lease() == 0)
                .map(e -> e.getKey())),
        leased,
        named(problems),
        v2.stream().filter(V2Api.Node::hasTtl).count());
  }

  /** The first {@link #NAMED} problems, and how many more there are. */
  private static List<String> named(List<String> problems) {
    if (problems.size() <= NAMED) return problems;
    List<String> first = new ArrayList<>(problems.subList(0, NAMED));
    first.add("and " + (problems.size() - NAMED) + " more keys like these");
    return first;
  }
}
