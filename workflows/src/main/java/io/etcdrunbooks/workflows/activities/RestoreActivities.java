package io.etcdrunbooks.workflows.activities;

import io.etcdrunbooks.workflows.model.BackupRecord;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.temporal.activity.ActivityInterface;
import java.util.List;

/**
 * Disaster recovery from a kept backup: the backup checked end to end, each member's old data dir
 * kept aside, the snapshot restored into a fresh data dir on each member's host with the tool of
 * the etcd version installed there. The decrypted snapshot exists only for the length of one call,
 * on the worker and on the host.
 */
@ActivityInterface(namePrefix = "Restore")
public interface RestoreActivities {

  /**
   * The backup to restore ({@code backupId} empty or "latest": the newest kept backup whose file
   * still matches its metadata, of the minor version asked for), checked end to end: it belongs to
   * the cluster, its file has its recorded SHA-256, it decrypts with the cluster's key, and etcd's
   * own tool reads the recorded revision and hash from it. A backup named by id that the worker no
   * longer has is first downloaded from the cluster's object store (backup.objectStore) into its
   * backup directory, its SHA-256 checked as it streams. Touches nothing on the cluster; fails,
   * non-retryably, naming what is wrong (a failed download is retried).
   */
  BackupRecord checkBackup(CheckBackupRequest request);

  /**
   * The highest revision any reachable member reports (serializable reads: no quorum needed); 0
   * when none answers. What a restore loses is every revision above the backup's, up to this one.
   */
  long lastSeenRevision(ClusterRef cluster);

  /**
   * Renames the member's data dir to {@code <dataDir>.before-restore-<restoreId>} (never deleted);
   * returns that path, or "" when there was no data to keep. Skips what is done.
   */
  String keepDataDirAside(MemberRestoreRequest request);

  /**
   * Restores the backup into the member's fresh data dir on its host, with a new cluster token and
   * the inventory's initial cluster; with {@code --bump-revision} and {@code --mark-compacted}
   * wherever the tool has them (etcdutl 3.5.10 on: the member's own, or the toolVersion's), so that
   * watchers never see revisions go backwards. Returns the revision bump used (0 when the tool has
   * none). Skips a member already restored for this restoreId. With a placement, restores onto that
   * host (a restore onto new hosts, before the inventory names them); an empty data dir there is
   * taken as it is.
   */
  long restoreMember(RestoreMemberRequest request);

  /**
   * What keeps a host from taking a member of a restore onto new hosts, touching nothing: etcd
   * already running there as the cluster's service kind runs it, or a non-empty data dir. Empty
   * when the host is free.
   */
  List<String> newHostProblems(NewHostRequest request);

  /**
   * The kube-apiserver EncryptionConfiguration key names the backup recorded against each
   * control-plane host's file now: one problem per host whose file lacks one of them (naming host,
   * file and the missing keys), or cannot be read; with putBack, none where the backup kept the
   * file, which {@link #putBackEncryptionConfig} then writes. Empty when the backup recorded none.
   * Touches nothing.
   */
  List<String> encryptionConfigProblems(EncryptionConfigRequest request);

  /**
   * Writes the backup's kept EncryptionConfiguration to the control-plane host's
   * encryptionConfigPath when the file there lacks keys the backup recorded, keeping that file as
   * {@code <path>.before-restore-<restoreId>}. Returns false, touching nothing, when it lacks none.
   */
  boolean putBackEncryptionConfig(PutBackEncryptionConfigRequest request);

  record EncryptionConfigRequest(String cluster, String backupId, boolean putBack) {}

  record PutBackEncryptionConfigRequest(
      String cluster, String host, String backupId, String restoreId) {}

  /**
   * @param member the new member's placement, its paths complete
   */
  record NewHostRequest(String cluster, MemberPlacement member) {}

  /**
   * @param takenOnMinor with "latest": only backups taken on this minor version, for example 3.4
   *     (empty: any)
   */
  record CheckBackupRequest(String cluster, String backupId, String takenOnMinor) {}

  record MemberRestoreRequest(String cluster, String member, String restoreId) {}

  /**
   * @param initialCluster every member's name=peerURL, from the inventory
   * @param clusterToken a token no earlier incarnation of the cluster used
   * @param toolVersion the release whose etcdutl restores, taken from the binary source (empty or
   *     null: the tool of the version installed for the member)
   * @param placement the member's host when it is not (yet) in the inventory (null: the inventory's
   *     member)
   */
  record RestoreMemberRequest(
      String cluster,
      String member,
      String backupId,
      String restoreId,
      String initialCluster,
      String clusterToken,
      String toolVersion,
      MemberPlacement placement) {}
}
