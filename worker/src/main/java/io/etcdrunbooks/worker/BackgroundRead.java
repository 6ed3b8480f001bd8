package io.etcdrunbooks.worker;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A read of members or hosts that a scrape starts in the background when the last one is older than
 * its maximum age, never two at once: a scrape never waits on a member or host that does not
 * answer, and shows the values of the last read that finished.
 */
final class BackgroundRead {

  private static final Logger log = LoggerFactory.getLogger(BackgroundRead.class);

  private final String what;
  private final Duration maxAge;
  private final Runnable read;
  private final AtomicBoolean reading = new AtomicBoolean();
  private volatile Instant readAt = Instant.EPOCH;

  /**
   * @param what what is read, for the log when a read fails ("member health")
   */
  BackgroundRead(String what, Duration maxAge, Runnable read) {
    this.what = what;
    this.maxAge = maxAge;
    this.read = read;
  }

  void startIfStale() {
    startIfStale(false);
  }

  /** As {@link #startIfStale()}, and whatever the last read's age when {@code changed}. */
  void startIfStale(boolean changed) {
    if (!changed && Instant.now().isBefore(readAt.plus(maxAge))) return;
    if (!reading.compareAndSet(false, true)) return;
    CompletableFuture.runAsync(
        () -> {
          try {
            read.run();
            readAt = Instant.now();
          } catch (RuntimeException e) {
            log.warn("{} not read: {}", what, e.getMessage());
          } finally {
            reading.set(false);
          }
        });
  }
}
