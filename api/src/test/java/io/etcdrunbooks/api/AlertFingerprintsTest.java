package io.etcdrunbooks.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/**
 * The webhook's memory of the alerts that started a runbook: a window, forgotten on resolution,
 * bounded.
 */
class AlertFingerprintsTest {

  private final MutableClock clock = new MutableClock();

  @Test
  void aFingerprintIsRememberedForTheWindowThenForgotten() {
    AlertFingerprints fingerprints = new AlertFingerprints(Duration.ofMinutes(30), clock, 100);
    fingerprints.started("a1b2", "change-prod-1", "run-1");

    clock.advance(Duration.ofMinutes(29));
    assertThat(fingerprints.startedWithin("a1b2"))
        .get()
        .extracting(AlertFingerprints.Started::workflowId, AlertFingerprints.Started::runId)
        .containsExactly("change-prod-1", "run-1");
    assertThat(fingerprints.startedWithin("other")).isEmpty();

    clock.advance(Duration.ofMinutes(1));
    assertThat(fingerprints.startedWithin("a1b2")).isEmpty();
    assertThat(fingerprints.size()).isZero();
  }

  @Test
  void aResolvedAlertIsForgottenAtOnce() {
    AlertFingerprints fingerprints = new AlertFingerprints(Duration.ofMinutes(30), clock, 100);
    fingerprints.started("a1b2", "change-prod-1", "run-1");

    fingerprints.resolved("a1b2");

    assertThat(fingerprints.startedWithin("a1b2")).isEmpty();
  }

  @Test
  void pastItsCapTheOldestFingerprintsGoFirst() {
    AlertFingerprints fingerprints = new AlertFingerprints(Duration.ofMinutes(30), clock, 3);
    for (int i = 1; i <= 5; i++) {
      fingerprints.started("f" + i, "change-c" + i, "run-" + i);
      clock.advance(Duration.ofSeconds(1));
    }

    assertThat(fingerprints.size()).isEqualTo(3);
    assertThat(fingerprints.startedWithin("f1")).isEmpty();
    assertThat(fingerprints.startedWithin("f2")).isEmpty();
    assertThat(fingerprints.startedWithin("f3")).isPresent();
    assertThat(fingerprints.startedWithin("f5")).isPresent();
  }

  @Test
  void blankFingerprintsAndAZeroWindowRememberNothing() {
    AlertFingerprints fingerprints = new AlertFingerprints(Duration.ofMinutes(30), clock, 100);
    fingerprints.started(null, "change-prod-1", "run-1");
    fingerprints.started(" ", "change-prod-1", "run-1");
    assertThat(fingerprints.size()).isZero();
    assertThat(fingerprints.startedWithin(null)).isEmpty();

    AlertFingerprints off = new AlertFingerprints(Duration.ZERO, clock, 100);
    off.started("a1b2", "change-prod-1", "run-1");
    assertThat(off.startedWithin("a1b2")).isEmpty();
  }

  private static final class MutableClock extends Clock {
    private Instant now = Instant.parse("2026-11-23T10:00:00Z");

    void advance(Duration by) {
      now = now.plus(by);
    }

    @Override
    public Instant instant() {
      return now;
    }

    @Override
    public java.time.ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }
  }
}
