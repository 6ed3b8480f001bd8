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
   * The newest verified backup on each target the cluster has, in order: the worker's backup
   * directory ({@code local}), the off-site host ({@code offsite}), the object store ({@code
   * object_store}). A target with none, or that cannot be listed, says why in {@code problem}.
   */
  java.util.List<TargetBackup> newestPerTarget(DrillRequest request);

  /**
   * The backup to drill ({@code backupId} empty or "latest": the newest kept backup whose file is
   * whole), checked end to end as a restore checks it (SHA-256, decryption, etcd's own tool reads
   * its recorded revision and hash), downloaded first from the cluster's object store when the
   * worker has no copy. Says which target it came from. With a {@code target}: that target's own
   * copy, fetched from there into the drill's scratch space (never the worker's backup directory),
   * whatever the other targets hold.
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
   * @param target the target whose own copy is drilled ({@code local}, {@code offsite}, {@code
   *     object_store}); empty or null (runs before every target was drilled): wherever it is found
   */
  record DrillRequest(String cluster, String backupId, String drillId, String target) {

    public DrillRequest withBackupId(String id) {
      return new DrillRequest(cluster, id, drillId, target);
    }

    /** The copy of backup {@code id} on {@code where}. */
    public DrillRequest onTarget(String where, String id) {
      return new DrillRequest(cluster, id, drillId, where);
    }

    public boolean fromOneTarget() {
      return target != null && !target.isBlank();
    }
  }

  /**
   * @param backupId the newest verified backup there ("" when none)
   * @param problem why the target has nothing to drill ("" when it has)
   */
  record TargetBackup(String target, String backupId, String problem) {}

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
