package io.etcdrunbooks.tools;

import io.etcd.jetcd.Client;
import io.etcdrunbooks.activities.etcd.EtcdClients;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.MemberSpec;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The consistency check a careful SRE runs by hand, {@code etcdctl endpoint hashkv --cluster}: each
 * member's hashkv in turn, with a writer running. A hashkv holds the member's backend read lock for
 * its whole scan and that member's writes wait for it, so on a large keyspace no check of hashkv,
 * by hand or by a runbook, stays under the bench's stall target: this measures what one costs on
 * the same cluster, in the same run.
 */
final class HashCheckByHand {

  /** Each member's hashkv time and the longest write stall while they were taken. */
  record Measured(Map<String, Long> millisByMember, long longestStallMillis) {}

  private HashCheckByHand() {}

  static Measured measure(ClusterSpec cluster, List<String> clientUrls) throws Exception {
    Map<String, Long> took = new LinkedHashMap<>();
    WriteProbe.Report writes;
    try (Client client = Client.builder().endpoints(clientUrls.toArray(String[]::new)).build();
        WriteProbe probe = new WriteProbe(clientUrls, "/bench/hashkv/")) {
      Thread.sleep(500);
      for (MemberSpec member : cluster.members()) {
        long start = System.nanoTime();
        client
            .getMaintenanceClient()
            .hashKV(EtcdClients.target(member), 0)
            .get(2, TimeUnit.MINUTES);
        took.put(member.name(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
      }
      Thread.sleep(500);
      writes = probe.stopAndVerify();
    }
    return new Measured(took, writes.longestStallMillis());
  }
}
