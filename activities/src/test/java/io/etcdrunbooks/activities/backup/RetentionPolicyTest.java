package io.etcdrunbooks.activities.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.activities.backup.RetentionPolicy.Candidate;
import io.etcdrunbooks.activities.backup.RetentionPolicy.Decision;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RetentionPolicyTest {

  private static final Instant NOW = Instant.parse("2026-03-20T12:00:00Z");

  /** Every 6 hours (00, 06, 12, 18 UTC) for 30 days up to NOW, named by their time. */
  private static List<Candidate> everySixHoursForThirtyDays() {
    List<Candidate> backups = new ArrayList<>();
    for (Instant t = NOW.minus(Duration.ofDays(29)).minus(Duration.ofHours(12));
        !t.isAfter(NOW);
        t = t.plus(Duration.ofHours(6))) {
      backups.add(new Candidate(t.toString(), t, true));
    }
    return backups;
  }

  @Test
  void keepsTheNewestNAndTheNewestOfEachOfTheLastDaysAndDeletesTheRest() {
    List<Candidate> backups = everySixHoursForThirtyDays();

    Decision decision = new RetentionPolicy(3, 5).decide(backups, NOW);

    assertThat(decision.keep())
        .containsExactly(
            "2026-03-20T12:00:00Z",
            "2026-03-20T06:00:00Z",
            "2026-03-20T00:00:00Z", // newest 3 (today's newest among them)
            "2026-03-19T18:00:00Z",
            "2026-03-18T18:00:00Z",
            "2026-03-17T18:00:00Z",
            "2026-03-16T18:00:00Z"); // newest of 4 more days
    assertThat(decision.delete())
        .hasSize(backups.size() - 7)
        .doesNotContainAnyElementsOf(decision.keep());
  }

  @Test
  void aSecondRunOverWhatWasKeptDeletesNothingMore() {
    RetentionPolicy policy = new RetentionPolicy(3, 5);
    Decision first = policy.decide(everySixHoursForThirtyDays(), NOW);
    List<Candidate> left =
        everySixHoursForThirtyDays().stream().filter(c -> first.keep().contains(c.id())).toList();

    assertThat(policy.decide(left, NOW).delete()).isEmpty();
  }

  @Test
  void daysWithoutBackupsKeepNothingExtraAndOldBackupsGoOnceOutsideTheWindow() {
    List<Candidate> backups =
        List.of(
            verified("a", "2026-03-20T01:00:00Z"),
            verified("b", "2026-03-17T23:59:59Z"),
            verified("c", "2026-03-17T00:00:00Z"),
            verified("d", "2026-03-13T10:00:00Z"));

    Decision decision = new RetentionPolicy(1, 7).decide(backups, NOW);

    assertThat(decision.keep()).containsExactly("a", "b");
    assertThat(decision.delete()).containsExactly("c", "d");
  }

  @Test
  void theNewestVerifiedBackupIsNeverDeletedEvenWhenNewerOnesAreBrokenAndEverythingIsOld() {
    List<Candidate> backups =
        List.of(
            new Candidate("broken-newest", Instant.parse("2026-03-20T11:00:00Z"), false),
            new Candidate("broken-new", Instant.parse("2026-03-20T10:00:00Z"), false),
            verified("last-good", "2025-01-01T00:00:00Z"),
            new Candidate("broken-old", Instant.parse("2024-12-31T00:00:00Z"), false),
            verified("older-good", "2024-12-30T00:00:00Z"));

    Decision decision = new RetentionPolicy(1, 0).decide(backups, NOW);

    assertThat(decision.keep()).containsExactly("broken-newest", "broken-new", "last-good");
    assertThat(decision.delete()).containsExactly("broken-old", "older-good");
  }

  @Test
  void brokenBackupsDoNotCountTowardsKeepLast() {
    List<Candidate> backups =
        List.of(
            verified("good-1", "2026-03-20T10:00:00Z"),
            new Candidate("broken", Instant.parse("2026-03-20T09:00:00Z"), false),
            verified("good-2", "2026-03-20T08:00:00Z"),
            verified("good-3", "2026-03-20T07:00:00Z"));

    Decision decision = new RetentionPolicy(2, 0).decide(backups, NOW);

    assertThat(decision.keep()).containsExactly("good-1", "good-2");
    assertThat(decision.delete()).containsExactly("broken", "good-3");
  }

  @Test
  void noBackupsOrOnlyOneDeletesNothing() {
    RetentionPolicy policy = new RetentionPolicy(1, 0);
    assertThat(policy.decide(List.of(), NOW).delete()).isEmpty();
    assertThat(policy.decide(List.of(verified("only", "2020-01-01T00:00:00Z")), NOW).keep())
        .containsExactly("only");
  }

  @Test
  void settingsThatCouldDeleteEverythingAreRefused() {
    assertThatThrownBy(() -> new RetentionPolicy(0, 7))
        .hasMessageContaining("keepLast must be at least 1");
    assertThatThrownBy(() -> new RetentionPolicy(1, -1)).hasMessageContaining("keepDailyDays");
  }

  private static Candidate verified(String id, String takenAt) {
    return new Candidate(id, Instant.parse(takenAt), true);
  }
}
