package io.etcdrunbooks.workflows.backup;

import java.util.List;

/**
 * What a BackupSchedule runbook did before it ended (it ends only with maxBackups).
 *
 * @param cluster cluster name
 * @param backupIds the backups it took, oldest first
 * @param failures backups that failed, with their cause (the schedule goes on after one)
 */
public record BackupScheduleResult(String cluster, List<String> backupIds, List<String> failures) {}
