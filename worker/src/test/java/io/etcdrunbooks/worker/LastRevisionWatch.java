package io.etcdrunbooks.worker;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.MemberSpec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A watch on a key prefix as an informer holds one (jetcd, plain http members): it remembers the
 * newest revision it was told of, which is what a watcher resumes from.
 */
final class LastRevisionWatch implements AutoCloseable {

  private final Client client;
  private final Watch.Watcher watcher;
  private final AtomicLong last = new AtomicLong();

  private LastRevisionWatch(MemberSpec member, String prefix) {
    this.client = Client.builder().endpoints(member.clientUrl()).build();
    this.watcher =
        client
            .getWatchClient()
            .watch(
                bytes(prefix),
                WatchOption.builder().isPrefix(true).build(),
                response ->
                    response.getEvents().stream()
                        .map(WatchEvent::getKeyValue)
                        .forEach(kv -> last.accumulateAndGet(kv.getModRevision(), Math::max)));
  }

  /** A watch from now on the prefix, through this member alone. */
  static LastRevisionWatch on(MemberSpec member, String prefix) {
    return new LastRevisionWatch(member, prefix);
  }

  /** Waits (bounded) until the watch was told of this revision; returns the newest it saw. */
  long await(long revision) throws Exception {
    Instant deadline = Instant.now().plus(Duration.ofSeconds(10));
    while (last.get() < revision) {
      if (Instant.now().isAfter(deadline))
        throw new AssertionError(
            "the watch saw revision " + last.get() + ", not " + revision + ", within 10 s");
      TimeUnit.MILLISECONDS.sleep(20);
    }
    return last.get();
  }

  /**
   * What a watcher resuming at {@code from} on the cluster is told first: the error (a compaction:
   * relist), the revisions of the events it is sent, or that it waits for revisions not yet written
   * (then it silently misses whatever came between).
   */
  static Object resume(ClusterSpec cluster, String prefix, long from) throws Exception {
    CompletableFuture<Object> first = new CompletableFuture<>();
    try (Client client =
        Client.builder()
            .endpoints(cluster.members().stream().map(MemberSpec::clientUrl).toArray(String[]::new))
            .build()) {
      Watch.Watcher watcher =
          client
              .getWatchClient()
              .watch(
                  bytes(prefix),
                  WatchOption.builder().isPrefix(true).withRevision(from).build(),
                  Watch.listener(
                      response -> {
                        List<Long> revisions =
                            response.getEvents().stream()
                                .map(e -> e.getKeyValue().getModRevision())
                                .toList();
                        first.complete("events at revisions " + revisions);
                      },
                      first::complete));
      try {
        return first.get(5, TimeUnit.SECONDS);
      } catch (TimeoutException e) {
        return "no answer within 5 s: the watch waits for revision " + from;
      } finally {
        watcher.close();
      }
    }
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    watcher.close();
    client.close();
  }
}
