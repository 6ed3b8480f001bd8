package io.etcdrunbooks.workflows.activities;

import io.etcdrunbooks.workflows.model.BackupRecord;
import io.temporal.activity.ActivityInterface;

/** Snapshot backups kept in the cluster's backup directory. */
@ActivityInterface
public interface BackupActivities {

  /**
   * Streams a snapshot from a healthy member (a follower when there is one), verifies it with etcd's own
   * tool (revision, hash, key count) and keeps it with its metadata. Returns the existing record when a
   * verified backup with this id is already kept.
   */
  BackupRecord takeVerifiedBackup(BackupRequest request);

  record BackupRequest(String cluster, String backupId) {}
}
