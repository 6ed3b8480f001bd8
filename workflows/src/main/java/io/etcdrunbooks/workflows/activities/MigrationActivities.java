package io.etcdrunbooks.workflows.activities;

import io.temporal.activity.ActivityInterface;
import java.util.List;
import java.util.Map;

/**
 * The v2 -> v3 store migration (etcd's migration guide, Kubernetes' migrate script): the v2 store
 * surveyed through a running member's v2 API, each stopped member's data dir copied and migrated
 * offline with its own version's {@code etcdctl migrate}, leases for keys that had a TTL, the v3
 * result compared with the v2 store key by key, and the v2 keys cleared at the end, all of it
 * within the kube-apiservers' {@code --etcd-prefix}. Each call reads the real state first and skips
 * what is done.
 */
@ActivityInterface(namePrefix = "Migration")
public interface MigrationActivities {

  /**
   * The v2 store's keys under the scope's prefix and the v3 store, as the first member serving the
   * v2 API shows them, and the v2 keys outside the prefix by top-level prefix. Touches nothing;
   * fails when no member answers.
   */
  StoreSurvey survey(MigrationScope scope);

  /**
   * Copies the stopped member's data dir to {@code <dataDir>.before-migrate-<migrationId>} and
   * checks the copy file by file (SHA-256); returns the copy's path. Skips a copy already checked;
   * a copy an interrupted call left unchecked is made again. Fails when the member still runs.
   */
  String copyDataDir(MemberMigrationRequest request);

  /**
   * {@code ETCDCTL_API=3 etcdctl migrate} on the stopped member's data dir (and WAL dir), with the
   * tool of the etcd version installed for it; a marker beside the data dir makes a second call a
   * no-op. Fails when the member still runs.
   */
  void migrateMember(MemberMigrationRequest request);

  /**
   * Gives the stopped member the v3 store {@code etcdctl migrate} made on the stopped member {@code
   * from} (its {@code member/snap/db}, streamed between the hosts and checked by SHA-256), so that
   * every member starts from one v3 store; a marker beside the data dir, as {@link #migrateMember}
   * writes, makes a second call a no-op and returns false. Fails when either member runs, or when
   * {@code from} is not migrated.
   */
  boolean copyV3Store(V3StoreCopyRequest request);

  /**
   * Puts the checked copy back as the member's data dir; the migrated one is kept as {@code
   * <dataDir>.after-migrate-<migrationId>}. Returns false when there was nothing to put back.
   */
  boolean putDataDirBack(MemberMigrationRequest request);

  /**
   * Gives every key under the prefix that has a TTL in the v2 store a lease in v3 with the time it
   * has left (rounded up to the minute, so a few leases serve many events, as kube-apiserver does),
   * and deletes from v3 the keys under the prefix the v2 store expired since the migration. Keys
   * leased already are left alone. Deletes the v3 copies {@code etcdctl migrate} made of the keys
   * outside the prefix (flannel's, Calico's): their owners read and write them in v2 only, so a
   * copy would only go stale; the preflight refused a v3 store holding any key, so none of these
   * was in v3 before, and a leased key (never one of migrate's copies) is left alone.
   */
  LeaseReport attachLeases(MigrationScope scope);

  /**
   * Compares every v2 key under the prefix with its v3 counterpart (value, and a lease where it had
   * a TTL) and the v3 keys under the prefix with v2; returns the comparison, touching nothing.
   */
  StoreComparison compare(MigrationScope scope);

  /**
   * Deletes the prefix from the v2 store through the v2 API (recursively); every other prefix stays
   * as it is. Returns the keys deleted (0 when it held none).
   */
  long clearV2(MigrationScope scope);

  /**
   * The keys a migration moves: those under the kube-apiservers' {@code --etcd-prefix}.
   *
   * @param etcdPrefix "/registry" unless the apiservers say otherwise; null in runs started before
   *     the prefix was read, which the survey, leases and comparison take as the whole store (as
   *     those runs did) and {@link #clearV2} as "/registry" (never deleting beyond Kubernetes'
   *     default)
   */
  record MigrationScope(String cluster, String etcdPrefix) {}

  /**
   * @param v2ServedBy members answering the v2 API
   * @param v2Keys keys in the v2 store (directories not counted)
   * @param v2KeysWithTtl of those, keys with a TTL
   * @param v2Prefixes keys per prefix of two path segments ("/registry/pods": 120)
   * @param v3Keys keys in the v3 store
   * @param v3Revision the v3 store's revision
   * @param v2Untouched keys outside the prefix per top-level prefix ("/coreos.com": 3), which the
   *     migration leaves where they are; null in older histories
   */
  record StoreSurvey(
      List<String> v2ServedBy,
      long v2Keys,
      long v2KeysWithTtl,
      Map<String, Long> v2Prefixes,
      long v3Keys,
      long v3Revision,
      Map<String, Long> v2Untouched) {}

  record MemberMigrationRequest(String cluster, String member, String migrationId) {}

  /**
   * @param from the member migrated, whose v3 store {@code member} gets
   */
  record V3StoreCopyRequest(String cluster, String from, String member, String migrationId) {}

  /**
   * @param leases leases granted now
   * @param keysLeased keys given a lease now
   * @param alreadyLeased keys that had one
   * @param expiredDeleted keys the v2 store expired meanwhile, deleted from v3 too
   * @param shortestTtlSeconds the shortest TTL granted (0: none granted)
   * @param longestTtlSeconds the longest TTL granted
   * @param copiesOutsidePrefixDeleted v3 copies migrate made of keys outside the prefix, deleted
   */
  record LeaseReport(
      long leases,
      long keysLeased,
      long alreadyLeased,
      long expiredDeleted,
      long shortestTtlSeconds,
      long longestTtlSeconds,
      long copiesOutsidePrefixDeleted) {}

  /**
   * @param v2Keys keys compared
   * @param v3Keys keys in the v3 store
   * @param v2Prefixes keys without a TTL per prefix in v2; {@code v3Prefixes} keys without a lease
   *     in v3 (all keys in older histories)
   * @param problems at most ten, each naming a key: missing in v3 (a key with a TTL only while its
   *     v2 TTL lasts), another value, no lease although it had a TTL, in v3 only without a lease
   * @param v2KeysWithTtl of the v2 keys, those with a TTL (events), which expire on their own
   */
  record StoreComparison(
      long v2Keys,
      long v3Keys,
      Map<String, Long> v2Prefixes,
      Map<String, Long> v3Prefixes,
      long leasedKeys,
      List<String> problems,
      long v2KeysWithTtl) {}
}
