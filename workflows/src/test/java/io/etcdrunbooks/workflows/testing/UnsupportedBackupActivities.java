package io.etcdrunbooks.workflows.testing;

import io.etcdrunbooks.workflows.activities.BackupActivities;
import io.etcdrunbooks.workflows.model.BackupRecord;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.RetentionResult;

/**
 * {@link BackupActivities} with every method throwing: a fake implements this and overrides only
 * what its runbook calls, so a call it does not expect fails naming the method. A fake that still
 * declares a stub of its own compiles too; a method added to the interface gets its default here.
 */
public interface UnsupportedBackupActivities extends BackupActivities {

  @Override
  default RetentionResult applyRetention(ClusterRef cluster) {
    throw new UnsupportedOperationException("BackupActivities.applyRetention is not faked here");
  }

  @Override
  default String copyOffsite(BackupRequest request) {
    throw new UnsupportedOperationException("BackupActivities.copyOffsite is not faked here");
  }

  @Override
  default int scheduleIntervalMinutes(ClusterRef cluster) {
    throw new UnsupportedOperationException(
        "BackupActivities.scheduleIntervalMinutes is not faked here");
  }

  @Override
  default BackupRecord takeVerifiedBackup(BackupRequest request) {
    throw new UnsupportedOperationException(
        "BackupActivities.takeVerifiedBackup is not faked here");
  }
}
