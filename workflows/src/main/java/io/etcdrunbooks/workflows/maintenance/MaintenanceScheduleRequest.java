package io.etcdrunbooks.workflows.maintenance;

import java.util.List;

/**
 * Input of the MaintenanceSchedule runbook: {@code {"cluster":"prod-1","intervalMinutes":1440,
 * "compactOlderThanMinutes":10080}} runs Maintenance now and then every day, compacting the history
 * older than a week, until cancelled.
 *
 * @param intervalMinutes time between rounds (0: {@value #DEFAULT_INTERVAL_MINUTES})
 * @param compactOlderThanMinutes compact the history older than this, as kube-apiserver compacts by
 *     time: each round notes the cluster's revision, and compacts to the newest noted at least this
 *     long ago (0: no compaction, defragmentation only)
 * @param defragmentAll defragment every member each round, not only those with space to give back
 * @param nextAtMillis workflow time of the next round; 0: now (carried over when it continues as
 *     new)
 * @param maxRounds stop after this many rounds; 0: never
 * @param revisions the revisions noted so far, oldest first (carried over when it continues as new)
 * @param forceCompaction compact history younger than {@value #APISERVER_WINDOW_MINUTES} minutes
 *     too, which kube-apiserver may still serve (see {@link MaintenanceRequest#forceCompaction})
 */
public record MaintenanceScheduleRequest(
    String cluster,
    int intervalMinutes,
    int compactOlderThanMinutes,
    boolean defragmentAll,
    long nextAtMillis,
    int maxRounds,
    List<RevisionSeen> revisions,
    boolean forceCompaction) {

  public static final int DEFAULT_INTERVAL_MINUTES = 1440;

  /**
   * History at least this old is past kube-apiserver's own window (it compacts every 5 minutes to
   * its previous compaction's revision): a round compacts it without asking kube-apiserver.
   */
  public static final int APISERVER_WINDOW_MINUTES = 10;

  /** A revision the cluster had at a workflow time. */
  public record RevisionSeen(long atMillis, long revision) {}

  public MaintenanceScheduleRequest {
    revisions = revisions == null ? List.of() : List.copyOf(revisions);
  }

  /** Every {@code intervalMinutes}, compacting history older than {@code olderThanMinutes}. */
  public static MaintenanceScheduleRequest every(
      String cluster, int intervalMinutes, int olderThanMinutes) {
    return new MaintenanceScheduleRequest(
        cluster, intervalMinutes, olderThanMinutes, false, 0, 0, List.of(), false);
  }

  /** This schedule defragmenting every member each round. */
  public MaintenanceScheduleRequest defragmentingAll() {
    return new MaintenanceScheduleRequest(
        cluster,
        intervalMinutes,
        compactOlderThanMinutes,
        true,
        nextAtMillis,
        maxRounds,
        revisions,
        forceCompaction);
  }

  /** This schedule stopping after {@code rounds} rounds. */
  public MaintenanceScheduleRequest stoppingAfter(int rounds) {
    return new MaintenanceScheduleRequest(
        cluster,
        intervalMinutes,
        compactOlderThanMinutes,
        defragmentAll,
        nextAtMillis,
        rounds,
        revisions,
        forceCompaction);
  }

  /** This schedule compacting history younger than kube-apiserver's window too. */
  public MaintenanceScheduleRequest forcingCompaction() {
    return new MaintenanceScheduleRequest(
        cluster,
        intervalMinutes,
        compactOlderThanMinutes,
        defragmentAll,
        nextAtMillis,
        maxRounds,
        revisions,
        true);
  }

  /**
   * Whether its rounds compact without asking kube-apiserver: the schedule dated the revision
   * itself, past kube-apiserver's window, or was told to.
   */
  public boolean roundsForceCompaction() {
    return forceCompaction || compactOlderThanMinutes >= APISERVER_WINDOW_MINUTES;
  }

  /** The request a run continues as new with. */
  public MaintenanceScheduleRequest continuing(long next, int roundsLeft, List<RevisionSeen> seen) {
    return new MaintenanceScheduleRequest(
        cluster,
        intervalMinutes,
        compactOlderThanMinutes,
        defragmentAll,
        next,
        roundsLeft,
        seen,
        forceCompaction);
  }

  public int effectiveIntervalMinutes() {
    return intervalMinutes > 0 ? intervalMinutes : DEFAULT_INTERVAL_MINUTES;
  }
}
