package io.etcdrunbooks.workflows.maintenance;

import io.temporal.common.SearchAttributeKey;
import io.temporal.workflow.Workflow;
import java.time.OffsetDateTime;
import java.util.Optional;

/**
 * A MaintenanceSchedule run that a Temporal Schedule started for one round: its slot is the
 * schedule's scheduled time (a backfill's too, in the past), and the revisions noted by the rounds
 * before come from the last round that completed, which Temporal hands to the next run. Runs
 * started otherwise (the loop of old) carry neither and are left as they are.
 */
final class ScheduledRound {

  /** Set by Temporal on every workflow a schedule starts: the slot it was started for. */
  static final SearchAttributeKey<OffsetDateTime> SCHEDULED_START_TIME =
      SearchAttributeKey.forOffsetDateTime("TemporalScheduledStartTime");

  private ScheduledRound() {}

  /** The request of this round with its slot and the revisions carried over; empty otherwise. */
  static Optional<MaintenanceScheduleRequest> of(MaintenanceScheduleRequest request) {
    if (request.maxRounds() != 1 || request.nextAtMillis() != 0 || !request.revisions().isEmpty())
      return Optional.empty();
    OffsetDateTime slot = Workflow.getTypedSearchAttributes().get(SCHEDULED_START_TIME);
    if (slot == null) return Optional.empty();
    MaintenanceScheduleResult last =
        Workflow.getLastCompletionResult(MaintenanceScheduleResult.class);
    return Optional.of(
        request.continuing(
            slot.toInstant().toEpochMilli(),
            1,
            last == null ? request.revisions() : last.revisions()));
  }
}
