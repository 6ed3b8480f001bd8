package io.etcdrunbooks.workflows.phases;

import io.etcdrunbooks.workflows.activities.BackupActivities.BackupRequest;
import io.etcdrunbooks.workflows.activities.EtcdActivities.KeyspaceDigestRequest;
import io.etcdrunbooks.workflows.common.RunIds;
import io.etcdrunbooks.workflows.model.BackupRecord;
import io.etcdrunbooks.workflows.model.KeyspaceDigest;

/**
 * The BACKUP phase of a changing runbook: a snapshot verified by etcd's own tool and stored
 * encrypted, and the checksum of every key at its revision, which the postflight reads again to
 * show nothing was lost.
 */
public final class VerifiedBackup {

  private VerifiedBackup() {}

  /**
   * @param purpose names the backup, for example "pre-upgrade" (the run id's start is added)
   */
  public static Taken take(RunContext ctx, String purpose) {
    BackupRecord backup = backupOnly(ctx, purpose);
    KeyspaceDigest keyspace = keyspaceAt(ctx, backup);
    return new Taken(backup, keyspace);
  }

  /** The checksum of every key at the backup's revision. */
  public static KeyspaceDigest keyspaceAt(RunContext ctx, BackupRecord backup) {
    return ctx.progress()
        .record(
            "keyspace checksum at revision " + backup.revision(),
            () ->
                ctx.activities()
                    .etcd
                    .keyspaceDigest(new KeyspaceDigestRequest(ctx.cluster(), backup.revision())));
  }

  /** The verified backup alone, for a runbook that reads the keyspace beside it. */
  public static BackupRecord backupOnly(RunContext ctx, String purpose) {
    return ctx.progress()
        .record(
            "verified backup",
            () ->
                ctx.activities()
                    .backup
                    .takeVerifiedBackup(
                        new BackupRequest(ctx.cluster(), purpose + "-" + RunIds.suffix())));
  }

  public record Taken(BackupRecord backup, KeyspaceDigest keyspace) {}
}
