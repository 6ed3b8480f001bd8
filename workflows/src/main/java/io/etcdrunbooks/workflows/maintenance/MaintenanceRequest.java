package io.etcdrunbooks.workflows.maintenance;

import io.etcdrunbooks.workflows.common.RunbookOptions;

/**
 * Input of the Maintenance runbook, one JSON object so the Temporal Web UI can start it: {@code
 * {"cluster":"prod-1","compactKeepRevisions":10000}}.
 *
 * @param compactRevision compact the keyspace's history up to this revision (0: see
 *     compactKeepRevisions)
 * @param compactKeepRevisions compact up to the current revision less this many (0 with
 *     compactRevision 0: no compaction; -1: up to the current revision)
 * @param defragmentAll defragment every member, not only those whose database has at least {@value
 *     #MIN_FREE_PERCENT}% (and {@value #MIN_FREE_BYTES} bytes) free to give back
 * @param forceCompaction compact even history kube-apiserver may still serve (newer than its own
 *     last compaction): its paginated LISTs and lagging watches then fail with 410 Gone and relist
 */
public record MaintenanceRequest(
    String cluster,
    long compactRevision,
    long compactKeepRevisions,
    boolean defragmentAll,
    boolean dryRun,
    boolean requireApproval,
    boolean forceCompaction) {

  public static final int MIN_FREE_PERCENT = 10;
  public static final long MIN_FREE_BYTES = 1L << 20;

  /** Defragmentation only, of the members with space to give back. */
  public static MaintenanceRequest of(String cluster, RunbookOptions options) {
    return new MaintenanceRequest(
        cluster, 0, 0, false, options.dryRun(), options.requireApproval(), false);
  }

  /** This request compacting up to the current revision less {@code keep} (0: all history). */
  public MaintenanceRequest compactingAllBut(long keep) {
    return new MaintenanceRequest(
        cluster, 0, keep == 0 ? -1 : keep, defragmentAll, dryRun, requireApproval, forceCompaction);
  }

  /** This request compacting up to {@code revision}. */
  public MaintenanceRequest compactingTo(long revision) {
    return new MaintenanceRequest(
        cluster, revision, 0, defragmentAll, dryRun, requireApproval, forceCompaction);
  }

  /** This request defragmenting every member whatever it would give back. */
  public MaintenanceRequest defragmentingAll() {
    return new MaintenanceRequest(
        cluster,
        compactRevision,
        compactKeepRevisions,
        true,
        dryRun,
        requireApproval,
        forceCompaction);
  }

  /** This request compacting even inside kube-apiserver's window. */
  public MaintenanceRequest forcingCompaction() {
    return new MaintenanceRequest(
        cluster,
        compactRevision,
        compactKeepRevisions,
        defragmentAll,
        dryRun,
        requireApproval,
        true);
  }

  /** Whether any compaction is asked for. */
  public boolean compacts() {
    return compactRevision > 0 || compactKeepRevisions != 0;
  }

  /** The revision to compact to, from the cluster's current one; 0 when none is asked for. */
  public long compactionTarget(long currentRevision) {
    if (compactRevision > 0) return compactRevision;
    if (compactKeepRevisions < 0) return currentRevision;
    if (compactKeepRevisions > 0) return Math.max(0, currentRevision - compactKeepRevisions);
    return 0;
  }
}
