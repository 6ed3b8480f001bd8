package io.etcdrunbooks.workflows.activities;

import io.etcdrunbooks.workflows.model.BackupRecord;
import io.etcdrunbooks.workflows.model.KeyspaceHash;
import io.temporal.activity.ActivityInterface;

/**
 * Restore drills: a backup restored on the worker, never on the cluster's hosts, and served by a
 * throwaway etcd of its own version to be measured. Nothing here touches the cluster's members.
 */
@ActivityInterface(namePrefix = "Drill")
public interface DrillActivities {

  /**
   * The backup to drill ({@code backupId} empty or "latest": the newest kept backup whose file is
   * whole), checked end to end as a restore checks it (SHA-256, decryption, etcd's own tool reads
   * its recorded revision and hash), downloaded first from the cluster's object store when the
   * worker has no copy. Says which target it came from.
   */
  DrillBackup checkBackup(DrillRequest request);

  /**
   * Restores the backup with its etcd version's own tool (etcdutl from 3.5 on, etcdctl before) into
   * a scratch directory on the worker, starts a single etcd of that version on a free 127.0.0.1
   * port, and reads its revision, the live keys and hashkv at the backup's revision (compacted
   * first to the compaction the backup's hash counted from, when that is newer). The throwaway etcd
   * is stopped and the scratch directory removed on every path; a leftover of an earlier attempt is
   * removed first. Heartbeats throughout.
   */
  DrillMeasurement restoreAndMeasure(DrillRequest request);

  /**
   * Stops the throwaway etcd of this drill if one is still running (a worker that died mid-drill)
   * and removes its scratch directory. Returns whether there was anything to remove.
   */
  boolean cleanUp(DrillRequest request);

  /** Keeps the drill's outcome where the worker's metrics read it. */
  void recordResult(DrillOutcome outcome);

  /**
   * @param backupId the backup's id ("" or "latest": the newest)
   * @param drillId names the scratch directory; the same on every attempt of one run
   */
  record DrillRequest(String cluster, String backupId, String drillId) {

    public DrillRequest withBackupId(String id) {
      return new DrillRequest(cluster, id, drillId);
    }
  }

  /**
   * @param target where the backup was found: {@code local} (the worker's backup directory) or
   *     {@code object_store} (downloaded from the cluster's bucket for the drill)
   */
  record DrillBackup(BackupRecord backup, String target) {}

  /**
   * What the throwaway etcd served.
   *
   * @param revision its current revision
   * @param liveKeys keys alive at the backup's revision
   * @param keyspaceHash its hashkv at the backup's revision (null when the backup recorded none to
   *     compare with)
   * @param tool the tool that restored it, with its version ("etcdutl 3.5.30")
   */
  record DrillMeasurement(long revision, long liveKeys, KeyspaceHash keyspaceHash, String tool) {}

  /**
   * @param finishedAt ISO-8601 time the drill finished (workflow time)
   */
  record DrillOutcome(
      String cluster, String backupId, String target, boolean passed, String finishedAt) {}
}
