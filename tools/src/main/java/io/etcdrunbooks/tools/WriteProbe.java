package io.etcdrunbooks.tools;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import java.nio.charset.StandardCharsets;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A client writing one key after another while a cluster is being changed: counts acknowledged and
 * failed writes and the longest time between two acknowledged writes (the stall a client such as
 * kube-apiserver would see).
 */
final class WriteProbe implements AutoCloseable {

  /** What the writer saw, and how many acknowledged writes were later missing or wrong. */
  /**
   * @param longestStallFromMillis when the longest stall began (the last acknowledgement before
   *     it), in epoch milliseconds, so that it can be placed among a runbook's steps
   */
  record Report(
      int acknowledged,
      int failed,
      long longestStallMillis,
      long longestStallFromMillis,
      int lost,
      List<Stall> stalls) {}

  /** A stall of at least {@link #NOTED_STALL_MILLIS}: when it began (epoch ms) and how long. */
  record Stall(long fromMillis, long millis) {}

  /** Stalls this long are kept (the first {@link #MAX_NOTED_STALLS}), to be placed among steps. */
  static final long NOTED_STALL_MILLIS = 100;

  private static final int MAX_NOTED_STALLS = 100;

  private static final int MAX_WRITES = 1_000_000;

  /** Go clientv3's back-off between retries (clientv3/options.go defaultBackoffWaitBetween). */
  private static final long RETRY_DELAY_MILLIS = 25;

  private final Client client;
  private final String prefix;
  private final List<Integer> acknowledged = new ArrayList<>();
  private final Thread thread;
  private volatile boolean stop;
  private int failed;
  private long longestStallNanos;
  private long longestStallFromMillis;
  private final List<Stall> stalls = new ArrayList<>();

  WriteProbe(List<String> endpoints, String prefix) {
    this.client =
        Client.builder()
            .endpoints(endpoints.toArray(String[]::new))
            // etcd's Go client, kube-apiserver's, retries a request that found no member every
            // 25 ms; jetcd's default (500 ms, doubling up to 2.5 s) counted its own back-off as
            // etcd's stall: 3.7-5 s whenever a put met a member as it stopped
            .retryDelay(RETRY_DELAY_MILLIS)
            .retryMaxDelay(2 * RETRY_DELAY_MILLIS) // jetcd wants it above the first delay
            .retryChronoUnit(ChronoUnit.MILLIS)
            .build();
    this.prefix = prefix;
    this.thread = new Thread(this::write, "write-probe");
    thread.setDaemon(true);
    thread.start();
  }

  private void write() {
    long lastAck = System.nanoTime();
    long lastAckMillis = System.currentTimeMillis();
    for (int i = 0; !stop && i < MAX_WRITES; i++) {
      try {
        client.getKVClient().put(bytes(prefix + i), bytes("v" + i)).get(5, TimeUnit.SECONDS);
        long now = System.nanoTime();
        long stallMillis = TimeUnit.NANOSECONDS.toMillis(now - lastAck);
        if (stallMillis >= NOTED_STALL_MILLIS && stalls.size() < MAX_NOTED_STALLS) {
          synchronized (acknowledged) {
            stalls.add(new Stall(lastAckMillis, stallMillis));
          }
        }
        if (now - lastAck > longestStallNanos) {
          longestStallNanos = now - lastAck;
          longestStallFromMillis = lastAckMillis;
        }
        lastAck = now;
        lastAckMillis = System.currentTimeMillis();
        synchronized (acknowledged) {
          acknowledged.add(i);
        }
      } catch (Exception notAcknowledged) {
        failed++;
      }
    }
  }

  /** Stops writing and checks that every acknowledged write is stored with its value. */
  Report stopAndVerify() throws Exception {
    stop = true;
    thread.join(TimeUnit.SECONDS.toMillis(30));
    Map<String, String> stored = new HashMap<>();
    ByteSequence from = bytes(prefix);
    for (KeyValue kv :
        client
            .getKVClient()
            .get(from, GetOption.builder().isPrefix(true).build())
            .get(30, TimeUnit.SECONDS)
            .getKvs()) {
      stored.put(
          kv.getKey().toString(StandardCharsets.UTF_8),
          kv.getValue().toString(StandardCharsets.UTF_8));
    }
    int lost = 0;
    synchronized (acknowledged) {
      for (int i : acknowledged) {
        if (!("v" + i).equals(stored.get(prefix + i))) lost++;
      }
      return new Report(
          acknowledged.size(),
          failed,
          TimeUnit.NANOSECONDS.toMillis(longestStallNanos),
          longestStallFromMillis,
          lost,
          List.copyOf(stalls));
    }
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    stop = true;
    client.close();
  }
}
