package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.LeaseOption;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.MemberSpec;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What a runbook must leave behind in a real cluster, asserted for the tests of several runbooks.
 */
final class ClusterAssertions {

  /** The longest TTL the tests write v2 events with ({@link V2Writer#kubernetes15}). */
  private static final long LONGEST_EVENT_TTL = 3600;

  private ClusterAssertions() {}

  /**
   * The members, healthy voters on the version, as the inventory now lists them, every key as
   * before, hashkv equal.
   */
  static void assertHealthyAndIntact(
      SandboxRunbooks runbooks,
      List<String> members,
      String version,
      Map<String, ClusterProbe.StoredKey> keys)
      throws Exception {
    ClusterSpec cluster = runbooks.cluster();
    assertThat(cluster.members()).extracting(MemberSpec::name).containsExactlyElementsOf(members);
    assertThat(runbooks.state().members())
        .allSatisfy(
            m -> {
              assertThat(m.healthy()).as("%s healthy: %s", m.name(), m.errors()).isTrue();
              assertThat(m.learner()).as("%s is a voter", m.name()).isFalse();
            });
    try (ClusterProbe probe = new ClusterProbe(cluster)) {
      var listed = probe.members();
      assertThat(listed).extracting(m -> m.getName()).containsExactlyInAnyOrderElementsOf(members);
      assertThat(probe.versions().values()).containsOnly(version);
      assertThat(probe.dump(0)).containsAllEntriesOf(keys);
      long now = probe.revision();
      Map<String, Long> hashes = probe.hashKvByMember(now);
      assertThat(hashes).hasSize(members.size());
      assertThat(hashes.values()).containsOnly(hashes.get(members.get(0)));
    }
  }

  /** Every written key with its value; events leased with at most their TTL left, objects not. */
  static void assertEveryKeyInV3(ClusterProbe probe, Map<String, String> written) throws Exception {
    List<KeyValue> kvs =
        probe
            .client()
            .getKVClient()
            .get(ClusterProbe.bytes("/registry/"), GetOption.builder().isPrefix(true).build())
            .get(30, TimeUnit.SECONDS)
            .getKvs();
    Map<String, String> inV3 = new HashMap<>();
    Map<Long, Long> ttlByLease = new HashMap<>();
    for (KeyValue kv : kvs) {
      String key = kv.getKey().toString(StandardCharsets.UTF_8);
      inV3.put(key, kv.getValue().toString(StandardCharsets.UTF_8));
      boolean event = key.startsWith("/registry/events/");
      assertThat(kv.getLease() != 0).as("%s leased", key).isEqualTo(event);
      if (event) {
        long ttl =
            ttlByLease.computeIfAbsent(
                kv.getLease(),
                lease -> {
                  try {
                    return probe
                        .client()
                        .getLeaseClient()
                        .timeToLive(lease, LeaseOption.DEFAULT)
                        .get(10, TimeUnit.SECONDS)
                        .getTTL();
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                });
        assertThat(ttl).as("%s TTL", key).isBetween(1L, LONGEST_EVENT_TTL + 60);
      }
    }
    assertThat(inV3).isEqualTo(written);
  }
}
