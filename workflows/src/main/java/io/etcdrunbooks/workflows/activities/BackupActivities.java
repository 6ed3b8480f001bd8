package io.etcdrunbooks.workflows.activities;

import io.etcdrunbooks.workflows.model.BackupRecord;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.RetentionResult;
import io.temporal.activity.ActivityInterface;

/**
 * Snapshot backups kept in the cluster's backup directory, encrypted unless the inventory says
 * otherwise.
 */
@ActivityInterface
public interface BackupActivities {

  /**
   * Streams a snapshot from a healthy member (a follower when there is one), verifies it with
   * etcd's own tool (revision, hash, key count), encrypts it with the cluster's backup key and
   * keeps it with its metadata; the plaintext never outlives the activity. Returns the existing
   * record when a verified backup with this id is already kept.
   */
  BackupRecord takeVerifiedBackup(BackupRequest request);

  /**
   * Deletes the cluster's backups its retention settings no longer keep; never the newest verified
   * one. The same policy then runs on the off-site host and in the object store when the inventory
   * names them, never deleting there a backup the worker keeps. Running it again deletes nothing
   * more. The result is the worker's own backups.
   */
  RetentionResult applyRetention(ClusterRef cluster);

  /**
   * Copies a kept backup (its file and metadata) to the cluster's off-site host over SFTP when the
   * inventory names one (backup.copyTo), and uploads it to the cluster's S3-compatible bucket when
   * it names one (backup.objectStore); checks each copy's SHA-256 there. Returns where the copies
   * are ("host:path", "s3://bucket/key", joined by " and "), or "" when neither is configured. A
   * copy already there with the right checksum is left as it is.
   */
  String copyOffsite(BackupRequest request);

  /**
   * How often the cluster's backup schedule takes a backup, from the inventory
   * (backup.intervalMinutes, default daily).
   */
  int scheduleIntervalMinutes(ClusterRef cluster);

  record BackupRequest(String cluster, String backupId) {}
}
