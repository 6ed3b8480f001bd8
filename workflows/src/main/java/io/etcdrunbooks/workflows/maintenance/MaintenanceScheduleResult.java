package io.etcdrunbooks.workflows.maintenance;

import io.etcdrunbooks.workflows.maintenance.MaintenanceScheduleRequest.RevisionSeen;
import java.util.List;

/**
 * What a MaintenanceSchedule did before it ended (it ends only with maxRounds).
 *
 * @param rounds one line per round: when, the compaction revision, the members defragmented
 * @param failures rounds that failed or were skipped (another change held the cluster), with why
 * @param revisions the revisions noted and still needed, oldest first: a Temporal Schedule hands
 *     them to its next round (the last completion result), as continue-as-new does to a loop
 */
public record MaintenanceScheduleResult(
    String cluster, List<String> rounds, List<String> failures, List<RevisionSeen> revisions) {

  public MaintenanceScheduleResult {
    rounds = List.copyOf(rounds);
    failures = List.copyOf(failures);
    revisions = revisions == null ? List.of() : List.copyOf(revisions);
  }

  public MaintenanceScheduleResult(String cluster, List<String> rounds, List<String> failures) {
    this(cluster, rounds, failures, List.of());
  }
}
