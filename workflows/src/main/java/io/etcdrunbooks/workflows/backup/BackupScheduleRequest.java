package io.etcdrunbooks.workflows.backup;

/**
 * Input of the BackupSchedule runbook: {@code {"cluster":"prod-1"}} takes a backup now and then
 * every backup.intervalMinutes of the inventory, until cancelled.
 *
 * @param cluster inventory name of the cluster
 * @param intervalMinutes time between backups; 0: the inventory's backup.intervalMinutes, read
 *     before each wait
 * @param nextAtMillis workflow time of the next backup; 0: now (carried over when the runbook
 *     continues as new)
 * @param maxBackups stop after this many backups; 0: never
 */
public record BackupScheduleRequest(
    String cluster, int intervalMinutes, long nextAtMillis, int maxBackups) {

  /**
   * One backup now, as a Temporal Schedule starts it every {@code intervalMinutes} (given, so that
   * the round reads no interval it does not use).
   */
  public static BackupScheduleRequest oneRound(String cluster, int intervalMinutes) {
    return new BackupScheduleRequest(cluster, intervalMinutes, 0, 1);
  }
}
