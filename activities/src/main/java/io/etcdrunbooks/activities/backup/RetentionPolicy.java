package io.etcdrunbooks.activities.backup;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Which backups of one cluster to delete: keep the newest {@code keepLast} verified backups, plus
 * the newest verified backup of each of the last {@code keepDailyDays} days (UTC, today included),
 * and never the newest verified backup whatever the settings. Backups that are not verified (file
 * gone or of the wrong size) are only deleted when they are older than the newest verified one;
 * newer ones are left for someone to look at.
 */
public record RetentionPolicy(int keepLast, int keepDailyDays) {

  public static final int DEFAULT_KEEP_LAST = 7;
  public static final int DEFAULT_KEEP_DAILY_DAYS = 14;

  public RetentionPolicy {
    if (keepLast < 1)
      throw new IllegalArgumentException("keepLast must be at least 1, got " + keepLast);
    if (keepDailyDays < 0)
      throw new IllegalArgumentException(
          "keepDailyDays must not be negative, got " + keepDailyDays);
  }

  /** One kept backup as retention sees it. */
  public record Candidate(String id, Instant takenAt, boolean verified) {}

  /** Ids to keep and to delete, each newest first. */
  public record Decision(List<String> keep, List<String> delete) {}

  public Decision decide(List<Candidate> backups, Instant now) {
    List<Candidate> newestFirst =
        backups.stream()
            .sorted(
                Comparator.comparing(Candidate::takenAt).reversed().thenComparing(Candidate::id))
            .toList();
    List<Candidate> verified = newestFirst.stream().filter(Candidate::verified).toList();
    Optional<Candidate> newestVerified = verified.stream().findFirst();

    Set<String> keep = new HashSet<>();
    verified.stream().limit(keepLast).forEach(c -> keep.add(c.id()));
    LocalDate today = LocalDate.ofInstant(now, ZoneOffset.UTC);
    Set<LocalDate> daysCovered = new HashSet<>();
    for (Candidate c : verified) {
      LocalDate day = LocalDate.ofInstant(c.takenAt(), ZoneOffset.UTC);
      boolean recent = !day.isBefore(today.minusDays(keepDailyDays - 1L)) && !day.isAfter(today);
      if (keepDailyDays > 0 && recent && daysCovered.add(day)) keep.add(c.id());
    }
    newestVerified.ifPresent(c -> keep.add(c.id()));
    for (Candidate c : newestFirst) {
      boolean newerThanEveryVerified =
          newestVerified.map(n -> c.takenAt().isAfter(n.takenAt())).orElse(true);
      if (!c.verified() && newerThanEveryVerified) keep.add(c.id());
    }

    List<String> kept = new ArrayList<>();
    List<String> deleted = new ArrayList<>();
    newestFirst.forEach(c -> (keep.contains(c.id()) ? kept : deleted).add(c.id()));
    return new Decision(kept, deleted);
  }
}
