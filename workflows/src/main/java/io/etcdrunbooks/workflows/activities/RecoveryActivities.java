package io.etcdrunbooks.workflows.activities;

import io.etcdrunbooks.workflows.model.MemberRef;
import io.temporal.activity.ActivityInterface;

/** What recovering a cluster that lost quorum asks beyond the other runbooks' activities. */
@ActivityInterface(namePrefix = "Recovery")
public interface RecoveryActivities {

  /**
   * The revision of the member's own copy of the keyspace, read from that member alone (its status,
   * which needs no quorum). Fails, retryably, when it does not answer.
   */
  long memberRevision(MemberRef member);

  /**
   * The members through which a linearizable read succeeds now (etcd's own health check): any such
   * member shows the cluster still has quorum, whatever the worker can reach. Each member is given
   * a few seconds.
   */
  java.util.List<String> quorumReads(io.etcdrunbooks.workflows.model.ClusterRef cluster);

  /**
   * The revision in the member's data dir, read on its host with etcd's own tool from a copy of its
   * database ({@code etcdutl snapshot status}, {@code etcdctl} before 3.5): for a member whose etcd
   * does not serve (restarted while quorum was lost, it waits for quorum before it serves clients).
   * -1 when the data dir holds no database. Touches nothing.
   *
   * @param version the etcd version whose tool reads it (the member's installed one)
   */
  long dataDirRevision(DataDirRevisionRequest request);

  record DataDirRevisionRequest(String cluster, String member, String version) {}

  /**
   * Copies the stopped member's data dir to {@code <dataDir>.before-recover-<recoveryId>} and
   * checks the copy file by file (SHA-256); returns the copy's path. Skips a copy already checked.
   * Fails, non-retryably, when the member still runs.
   */
  String copyDataDir(RecoveryMemberRequest request);

  record RecoveryMemberRequest(String cluster, String member, String recoveryId) {}

  /**
   * Fences a lost member on its host, so that it can never run beside the rebuilt cluster on the
   * old membership: its etcd stopped (a static pod's manifest moved out of kubelet's directory; a
   * systemd unit also disabled when {@code disable}), its data dir renamed to {@code
   * <dataDir>.fenced-<recoveryId>} (kept, never deleted) and a marker beside it saying why. Skips
   * what is done; returns what it did, in words.
   *
   * @param disable a systemd unit is disabled too (false when the member is rebuilt on the same
   *     host: the unit becomes the new member's)
   */
  String fenceMember(FenceMemberRequest request);

  record FenceMemberRequest(String cluster, String member, String recoveryId, boolean disable) {}

  /**
   * Rebuilds the stopped survivor's data dir as a new cluster of one from the database in its data
   * dir copy ({@code <dataDir>.before-recover-<recoveryId>}, made by {@link #copyDataDir}): {@code
   * etcdutl snapshot restore --skip-hash-check} with the member's own name and peer URL alone, a
   * new cluster token, {@code --bump-revision} and {@code --mark-compacted}. The restore goes to a
   * directory beside the data dir, which it replaces only once whole. Skips a member rebuilt
   * already for this recovery; returns the revision bump. Fails, non-retryably, when the member
   * runs or the copy holds no database.
   */
  long restoreSurvivor(RestoreSurvivorRequest request);

  /**
   * @param toolVersion the release whose etcdutl restores (3.5.10 or later)
   * @param ownTool the member's own etcdutl (its install dir's; a static pod's host gets the
   *     version's from the binary source), else the toolVersion's brought from the binary source
   * @param revisionBump how far the revision is raised
   */
  record RestoreSurvivorRequest(
      String cluster,
      String member,
      String recoveryId,
      String toolVersion,
      boolean ownTool,
      long revisionBump) {}
}
