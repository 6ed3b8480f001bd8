package io.etcdrunbooks.activities.migrate;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.PutOption;
import io.etcdrunbooks.activities.etcd.EtcdClients;
import io.etcdrunbooks.activities.etcd.V2Api;
import io.etcdrunbooks.activities.support.Heartbeats;
import io.etcdrunbooks.workflows.activities.MigrationActivities.LeaseReport;
import io.temporal.failure.ApplicationFailure;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Leases for migrated keys that had a TTL in v2: {@code etcdctl migrate} copies them without one,
 * so Kubernetes events would pile up for ever (the AKS field report). Keys whose remaining time
 * rounds up to the same minute share a lease, as kube-apiserver shares leases between events.
 */
final class LeaseAttacher {

  private static final long BUCKET_SECONDS = 60;

  private final Client client;

  LeaseAttacher(Client client) {
    this.client = client;
  }

  LeaseReport attach(KeyScope scope, List<V2Api.Node> v2All) {
    List<V2Api.Node> v2 = scope.within(v2All);
    if (v2.isEmpty()) {
      throw ApplicationFailure.newNonRetryableFailure(
          "the v2 store holds no keys"
              + (scope.prefix() == null ? "" : " under " + scope.prefix())
              + " now: without them the keys to lease cannot be told, and nothing is deleted from"
              + " v3; check what cleared the v2 store",
          "V2StoreEmpty");
    }
    V3Keys all = V3Keys.read(client.getKVClient());
    long copiesDeleted = deleteCopiesOutside(scope, all);
    V3Keys v3 = all.within(scope);
    long expired = deleteExpired(v2, v3);
    Instant now = Instant.now();
    TreeMap<Long, List<V2Api.Node>> byTtl = new TreeMap<>();
    long alreadyLeased = 0;
    for (V2Api.Node node : v2) {
      V3Keys.Entry entry = v3.keys().get(node.key());
      if (!node.hasTtl() || entry == null) continue;
      if (entry.lease() != 0) {
        alreadyLeased++;
        continue;
      }
      byTtl.computeIfAbsent(ttlSeconds(node, now), t -> new ArrayList<>()).add(node);
    }
    long keysLeased = 0;
    for (Map.Entry<Long, List<V2Api.Node>> group : byTtl.entrySet()) {
      long lease =
          EtcdClients.await(
                  client.getLeaseClient().grant(group.getKey()),
                  "grant a lease of " + group.getKey() + " s")
              .getID();
      for (V2Api.Node node : group.getValue()) {
        EtcdClients.await(
            client
                .getKVClient()
                .put(
                    bytes(node.key()),
                    bytes(node.value()),
                    PutOption.builder().withLeaseId(lease).build()),
            "lease key " + node.key());
        if (++keysLeased % 100 == 0) Heartbeats.beat(keysLeased + " keys leased");
      }
    }
    return new LeaseReport(
        byTtl.size(),
        keysLeased,
        alreadyLeased,
        expired,
        byTtl.isEmpty() ? 0 : byTtl.firstKey(),
        byTtl.isEmpty() ? 0 : byTtl.lastKey(),
        copiesDeleted);
  }

  /**
   * The v3 copies {@code etcdctl migrate} made of the keys outside the scope: it copies the whole
   * v2 store, but their owners (flannel, Calico) read and write them in v2 only, where they stay,
   * so a v3 copy would only go stale and mislead whoever moves them to v3 later. None of them was
   * in v3 before: the preflight refuses a v3 store that holds any key. A leased key is never one of
   * migrate's copies and is left alone.
   */
  private long deleteCopiesOutside(KeyScope scope, V3Keys v3) {
    long deleted = 0;
    for (Map.Entry<String, V3Keys.Entry> entry : v3.keys().entrySet()) {
      if (scope.contains(entry.getKey()) || entry.getValue().lease() != 0) continue;
      EtcdClients.await(
          client.getKVClient().delete(bytes(entry.getKey())),
          "delete the v3 copy of " + entry.getKey());
      if (++deleted % 100 == 0) Heartbeats.beat(deleted + " copies outside the prefix deleted");
    }
    return deleted;
  }

  /** The time the key has left, rounded up to the minute; at least a minute. */
  static long ttlSeconds(V2Api.Node node, Instant now) {
    long left =
        Math.max(1, (long) Math.ceil(Duration.between(now, node.expiresAt()).toMillis() / 1000.0));
    return ((left + BUCKET_SECONDS - 1) / BUCKET_SECONDS) * BUCKET_SECONDS;
  }

  /**
   * Keys the migration copied that the v2 store has expired since: the kube-apiservers are stopped,
   * so nothing else wrote them to v3.
   */
  private long deleteExpired(List<V2Api.Node> v2, V3Keys v3) {
    Set<String> inV2 = v2.stream().map(V2Api.Node::key).collect(Collectors.toSet());
    long deleted = 0;
    for (Map.Entry<String, V3Keys.Entry> entry : v3.keys().entrySet()) {
      if (inV2.contains(entry.getKey()) || entry.getValue().lease() != 0) continue;
      EtcdClients.await(
          client.getKVClient().delete(bytes(entry.getKey())), "delete expired " + entry.getKey());
      deleted++;
    }
    return deleted;
  }

  private static ByteSequence bytes(String text) {
    return ByteSequence.from(text, StandardCharsets.UTF_8);
  }
}
