package io.etcdrunbooks.workflows.maintenance;

import java.util.List;

/**
 * What a MaintenanceSchedule did before it ended (it ends only with maxRounds).
 *
 * @param rounds one line per round: when, the compaction revision, the members defragmented
 * @param failures rounds that failed or were skipped (another change held the cluster), with why
 */
public record MaintenanceScheduleResult(
    String cluster, List<String> rounds, List<String> failures) {

  public MaintenanceScheduleResult {
    rounds = List.copyOf(rounds);
    failures = List.copyOf(failures);
  }
}
