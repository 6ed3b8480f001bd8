package io.etcdrunbooks.api;

import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The alerts that started a runbook lately, by Alertmanager's fingerprint, so that Alertmanager
 * sending the same alert again ({@code repeat_interval}, retries, several Alertmanagers) starts no
 * second runbook once the first has ended: a fingerprint is kept for {@code
 * runbooks.alerts.dedupe-minutes} after its start, or until its alert resolves. Memory is bounded:
 * expired fingerprints go first, and past {@link #MAX_ENTRIES} the oldest go.
 */
@Singleton
final class AlertFingerprints {

  static final int MAX_ENTRIES = 10_000;

  /** What a fingerprint started, and when. */
  record Started(String workflowId, String runId, Instant at) {}

  private final Duration window;
  private final Clock clock;
  private final int maxEntries;
  // insertion order is start order, and every entry lives as long: the eldest entry is always the
  // first to expire
  private final LinkedHashMap<String, Started> started = new LinkedHashMap<>();

  @Inject
  AlertFingerprints(AlertsConfig config) {
    this(Duration.ofMinutes(config.dedupeMinutes()), Clock.systemUTC(), MAX_ENTRIES);
  }

  AlertFingerprints(Duration window, Clock clock, int maxEntries) {
    this.window = window;
    this.clock = clock;
    this.maxEntries = maxEntries;
  }

  Duration window() {
    return window;
  }

  /** What this fingerprint started within the window, if anything. */
  synchronized Optional<Started> startedWithin(String fingerprint) {
    evict();
    return usable(fingerprint) ? Optional.ofNullable(started.get(fingerprint)) : Optional.empty();
  }

  /**
   * Remembers that this fingerprint started a runbook now; a blank fingerprint is not remembered.
   */
  synchronized void started(String fingerprint, String workflowId, String runId) {
    if (!usable(fingerprint) || window.isZero()) return;
    started.remove(fingerprint);
    started.put(fingerprint, new Started(workflowId, runId, clock.instant()));
    evict();
  }

  /** The alert resolved: the next time it fires is a new outage, not a repeat. */
  synchronized void resolved(String fingerprint) {
    if (usable(fingerprint)) started.remove(fingerprint);
  }

  synchronized int size() {
    return started.size();
  }

  private void evict() {
    Instant expired = clock.instant().minus(window);
    Iterator<Map.Entry<String, Started>> eldest = started.entrySet().iterator();
    while (eldest.hasNext()) {
      Map.Entry<String, Started> entry = eldest.next();
      if (started.size() <= maxEntries && entry.getValue().at().isAfter(expired)) return;
      eldest.remove();
    }
  }

  private static boolean usable(String fingerprint) {
    return fingerprint != null && !fingerprint.isBlank();
  }
}
