package io.etcdrunbooks.workflows.maintenance;

import io.etcdrunbooks.workflows.activities.MaintenanceActivities.MemberSpace;
import java.util.List;

/**
 * What the Maintenance runbook did.
 *
 * @param compactedTo the revision the history is compacted to (0: no compaction)
 * @param before each member's database before, in inventory order
 * @param after each member's database after (as before for a dry run)
 * @param defragmented the members defragmented, in order (the leader last)
 * @param alarmsDisarmed the members whose NOSPACE alarm was disarmed
 */
public record MaintenanceResult(
    String cluster,
    long compactedTo,
    List<MemberSpace> before,
    List<MemberSpace> after,
    List<String> defragmented,
    List<String> alarmsDisarmed) {

  public MaintenanceResult {
    before = List.copyOf(before);
    after = List.copyOf(after);
    defragmented = List.copyOf(defragmented);
    alarmsDisarmed = List.copyOf(alarmsDisarmed);
  }
}
