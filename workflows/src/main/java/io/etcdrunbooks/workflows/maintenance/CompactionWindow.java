package io.etcdrunbooks.workflows.maintenance;

import io.etcdrunbooks.workflows.activities.MaintenanceActivities.ApiServerCompaction;
import java.util.Optional;

/**
 * Whether a compaction would cut into the history kube-apiserver still serves. kube-apiserver
 * compacts by time (every 5 minutes, to the revision of its previous compaction), so that a
 * paginated LIST's continue token and a watch that lags stay valid for one to two intervals;
 * compacting younger history makes them fail with 410 Gone, and every informer relists at once.
 */
final class CompactionWindow {

  static final String RELISTS =
      "kube-apiserver's paginated LISTs and lagging watches then fail with 410 Gone and every"
          + " informer relists at once";

  private CompactionWindow() {}

  static Optional<String> problem(long target, ApiServerCompaction apiServer) {
    if (!apiServer.marked()) {
      return Optional.of(
          ("revision %d cannot be dated: kube-apiserver's compaction marker %s is absent (no"
                  + " kube-apiserver compacts this cluster, or its --etcd-compaction-interval is"
                  + " 0), and history younger than about 10 minutes must stay: %s. Use"
                  + " MaintenanceSchedule with compactOlderThanMinutes of 10 or more (it compacts"
                  + " only revisions it saw that long ago), or set forceCompaction when no"
                  + " kube-apiserver reads this cluster or you accept the relists")
              .formatted(target, ApiServerCompaction.KEY, RELISTS));
    }
    if (target <= apiServer.compactedTo()) return Optional.empty();
    return Optional.of(
        ("compacting to revision %d would cut into the history kube-apiserver still serves: it"
                + " compacted to %d itself at revision %d and keeps what is newer for 5-10"
                + " minutes; %s. Defragment without compacting (kube-apiserver's own compaction"
                + " frees the same space a few minutes later), or set forceCompaction to accept"
                + " the relists")
            .formatted(target, apiServer.compactedTo(), apiServer.markedAtRevision(), RELISTS));
  }
}
