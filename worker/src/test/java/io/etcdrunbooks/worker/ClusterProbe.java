package io.etcdrunbooks.worker;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.cluster.Member;
import io.etcd.jetcd.options.GetOption;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.MemberSpec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Reads a cluster straight through jetcd, independently of the product's own checks, so that tests
 * compare the product's claims with what etcd holds.
 */
final class ClusterProbe implements AutoCloseable {

  /** A key as stored: value and the revisions etcd keeps for it. */
  record StoredKey(String value, long createRevision, long modRevision, long version) {}

  private final ClusterSpec cluster;
  private final Client client;

  ClusterProbe(ClusterSpec cluster) {
    this.cluster = cluster;
    var builder =
        Client.builder()
            // a dump of 64 KiB values can pass gRPC's default 4 MiB
            .maxInboundMessageSize(64 * 1024 * 1024)
            .endpoints(
                cluster.members().stream().map(MemberSpec::clientUrl).toArray(String[]::new));
    if (cluster.tls() != null) {
      try {
        builder.sslContext(
            io.etcdrunbooks.activities.etcd.TlsMaterial.load(cluster.tls())::configure);
      } catch (javax.net.ssl.SSLException e) {
        throw new IllegalStateException(e);
      }
    }
    this.client = builder.build();
  }

  Client client() {
    return client;
  }

  void put(String key, String value) throws Exception {
    client.getKVClient().put(bytes(key), bytes(value)).get(10, TimeUnit.SECONDS);
  }

  void putMany(String prefix, int count) throws Exception {
    for (int i = 0; i < count; i++) {
      put(prefix + i, "value-" + i);
    }
  }

  /**
   * The keys {@link #putMany} writes, up to 64 puts in flight at once: each key once, at a revision
   * of its own, in no set order. For a test that needs many keys but not their order: one by one,
   * 2,000 puts wait on 2,000 raft rounds.
   */
  void putManyUnordered(String prefix, int count) throws Exception {
    List<CompletableFuture<?>> inFlight = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      inFlight.add(client.getKVClient().put(bytes(prefix + i), bytes("value-" + i)));
      if (inFlight.size() == 64 || i == count - 1) {
        for (CompletableFuture<?> put : inFlight) put.get(10, TimeUnit.SECONDS);
        inFlight.clear();
      }
    }
  }

  /** etcd's member list, as the cluster answers it now. */
  List<Member> members() throws Exception {
    return client.getClusterClient().listMember().get(10, TimeUnit.SECONDS).getMembers();
  }

  long revision() throws Exception {
    return client
        .getKVClient()
        .get(bytes("\0"))
        .get(10, TimeUnit.SECONDS)
        .getHeader()
        .getRevision();
  }

  /** Every key at a revision (0: now), with its revisions. */
  Map<String, StoredKey> dump(long revision) throws Exception {
    Map<String, StoredKey> keys = new TreeMap<>();
    for (KeyValue kv :
        client
            .getKVClient()
            .get(
                bytes("\0"),
                GetOption.builder().withRange(bytes("\0")).withRevision(revision).build())
            .get(30, TimeUnit.SECONDS)
            .getKvs()) {
      keys.put(
          kv.getKey().toString(StandardCharsets.UTF_8),
          new StoredKey(
              kv.getValue().toString(StandardCharsets.UTF_8),
              kv.getCreateRevision(),
              kv.getModRevision(),
              kv.getVersion()));
    }
    return keys;
  }

  /** hashkv of every member at one revision, asked of each member itself. */
  Map<String, Long> hashKvByMember(long revision) throws Exception {
    Map<String, Long> hashes = new LinkedHashMap<>();
    for (MemberSpec m : cluster.members()) {
      hashes.put(
          m.name(),
          client
                  .getMaintenanceClient()
                  .hashKV(m.clientUrl(), revision)
                  .get(10, TimeUnit.SECONDS)
                  .getHash()
              & 0xffffffffL);
    }
    return hashes;
  }

  /** Server version reported by each member. */
  Map<String, String> versions() throws Exception {
    Map<String, String> versions = new LinkedHashMap<>();
    for (MemberSpec m : cluster.members()) {
      versions.put(
          m.name(),
          client
              .getMaintenanceClient()
              .statusMember(m.clientUrl())
              .get(10, TimeUnit.SECONDS)
              .getVersion());
    }
    return versions;
  }

  /** The cluster version as a member's /version reports it, for example 3.5.0. */
  String clusterVersion() throws Exception {
    var http = java.net.http.HttpClient.newHttpClient();
    String body =
        http.send(
                java.net.http.HttpRequest.newBuilder(
                        java.net.URI.create(cluster.members().get(0).clientUrl() + "/version"))
                    .build(),
                java.net.http.HttpResponse.BodyHandlers.ofString())
            .body();
    return new com.fasterxml.jackson.databind.ObjectMapper()
        .readTree(body)
        .path("etcdcluster")
        .asText();
  }

  static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    client.close();
  }
}
