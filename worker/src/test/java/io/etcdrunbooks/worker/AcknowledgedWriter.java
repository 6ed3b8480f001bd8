package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcdrunbooks.activities.etcd.EtcdClients;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.inventory.TlsSpec;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Writes keys one after another during a runbook, keeping those etcd acknowledged, then checks each
 * is there. It writes through the cluster's client URLs as given and, when a write fails there,
 * through https with the worker's client certificate, so writes go on across a move from http to
 * https.
 *
 * <p>At most {@link #WRITES_PER_SECOND}: a few writes fall into every member's restart, and the
 * cluster is not kept busy by the writer itself (unpaced, etcd's three members spent more CPU on it
 * than the whole rest of EnableTlsTest, on a 2-core CI machine shared with two other tests).
 */
final class AcknowledgedWriter implements AutoCloseable {

  /** Writes per second, for every writer of the tests. */
  static final int WRITES_PER_SECOND = 100;

  private final EtcdClients plain;
  private final EtcdClients tls;
  private final Map<String, String> acknowledged = new ConcurrentHashMap<>();
  private final AtomicBoolean stop = new AtomicBoolean();
  private final Thread thread;

  private AcknowledgedWriter(ClusterSpec cluster, TlsSpec workerTls) {
    this.plain = new EtcdClients(cluster);
    this.tls =
        new EtcdClients(
            cluster
                .withMembers(
                    cluster.members().stream()
                        .map(
                            m ->
                                new MemberSpec(
                                    m.name(),
                                    m.host(),
                                    m.sshPort(),
                                    "https" + m.clientUrl().substring("http".length()),
                                    m.peerUrl(),
                                    m.dataDir(),
                                    m.installDir(),
                                    m.serviceDir()))
                        .toList())
                .withTls(workerTls));
    this.thread = new Thread(this::write, "writer");
  }

  static AcknowledgedWriter start(ClusterSpec cluster, TlsSpec workerTls) {
    AcknowledgedWriter writer = new AcknowledgedWriter(cluster, workerTls);
    writer.thread.start();
    return writer;
  }

  private void write() {
    for (int i = 0; !stop.get() && i < 100_000; i++) {
      String key = "/registry/writer/k" + i;
      if (put(plain.cluster(), key, "v" + i) || put(tls.cluster(), key, "v" + i)) {
        acknowledged.put(key, "v" + i);
      }
      pace();
    }
  }

  /** Sleeps between two writes so that there are at most {@link #WRITES_PER_SECOND}. */
  static void pace() {
    try {
      TimeUnit.MILLISECONDS.sleep(1000 / WRITES_PER_SECOND);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static boolean put(Client client, String key, String value) {
    try {
      client.getKVClient().put(bytes(key), bytes(value)).get(3, TimeUnit.SECONDS);
      return true;
    } catch (Exception e) {
      return false; // not acknowledged: may or may not be there
    }
  }

  void stopAndCheckEveryAcknowledgedWrite(ClusterSpec now) throws Exception {
    stop.set(true);
    thread.join(10_000);
    assertThat(acknowledged).as("writes acknowledged during the move").isNotEmpty();
    try (EtcdClients check = new EtcdClients(now)) {
      for (Map.Entry<String, String> put : acknowledged.entrySet()) {
        assertThat(
                check
                    .cluster()
                    .getKVClient()
                    .get(bytes(put.getKey()))
                    .get(5, TimeUnit.SECONDS)
                    .getKvs()
                    .get(0)
                    .getValue()
                    .toString(StandardCharsets.UTF_8))
            .as(put.getKey())
            .isEqualTo(put.getValue());
      }
    }
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    stop.set(true);
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    plain.close();
    tls.close();
  }
}
