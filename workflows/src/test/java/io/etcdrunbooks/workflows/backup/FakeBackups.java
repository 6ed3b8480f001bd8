package io.etcdrunbooks.workflows.backup;

import io.etcdrunbooks.workflows.activities.BackupActivities;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.model.BackupRecord;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.RetentionResult;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A cluster's backup directory in memory: every backup taken is kept until retention, which keeps
 * the newest {@code keepLast}. An off-site host and a failing backup are injected.
 */
final class FakeBackups implements BackupActivities {

  private final List<String> kept = new ArrayList<>();
  private final List<String> copied = new ArrayList<>();
  private final int keepLast;
  private String offsite = "";
  private FailureType failsWith;
  private int failuresLeft;
  private int intervalMinutes = 60;

  FakeBackups(int keepLast) {
    this.keepLast = keepLast;
  }

  /** Copies go to this off-site directory ("host:path"); none without. */
  synchronized FakeBackups offsite(String where) {
    offsite = where;
    return this;
  }

  /** The next {@code times} backups fail, non-retryably, with this type. */
  synchronized FakeBackups failing(FailureType type, int times) {
    failsWith = type;
    failuresLeft = times;
    return this;
  }

  private volatile CountDownLatch taking;
  private volatile CountDownLatch release;

  /** Each backup counts {@code taking} down on its start, then waits for {@code release}. */
  FakeBackups holding(CountDownLatch taking, CountDownLatch release) {
    this.taking = taking;
    this.release = release;
    return this;
  }

  synchronized FakeBackups intervalMinutes(int minutes) {
    intervalMinutes = minutes;
    return this;
  }

  synchronized List<String> kept() {
    return List.copyOf(kept);
  }

  synchronized List<String> copied() {
    return List.copyOf(copied);
  }

  @Override
  public BackupRecord takeVerifiedBackup(BackupRequest request) {
    if (taking != null) {
      taking.countDown();
      try {
        release.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    return taken(request);
  }

  private synchronized BackupRecord taken(BackupRequest request) {
    if (failuresLeft > 0) {
      failuresLeft--;
      throw failsWith.nonRetryable(
          "backup "
              + request.backupId()
              + " of "
              + request.cluster()
              + " failed ("
              + failsWith
              + ")");
    }
    if (!kept.contains(request.backupId())) kept.add(request.backupId());
    return BackupRecord.builder()
        .id(request.backupId())
        .cluster(request.cluster())
        .member("m1")
        .etcdVersion("3.5.16")
        .revision(100 + kept.size())
        .hash(42)
        .keyCount(10)
        .sizeBytes(2048)
        .sha256("sha")
        .path("/backups/" + request.backupId() + ".db.enc")
        .takenAt("2026-01-01T00:00:00Z")
        .encrypted(true)
        .keyId("k1")
        .liveKeys(10)
        .build();
  }

  @Override
  public synchronized RetentionResult applyRetention(ClusterRef cluster) {
    List<String> deleted = new ArrayList<>();
    while (kept.size() > keepLast) deleted.add(0, kept.remove(0));
    return new RetentionResult(cluster.cluster(), List.copyOf(kept), deleted, List.of());
  }

  @Override
  public synchronized String copyOffsite(BackupRequest request) {
    if (offsite.isEmpty()) return "";
    copied.add(request.backupId());
    return offsite + "/" + request.backupId() + ".db.enc";
  }

  @Override
  public synchronized int scheduleIntervalMinutes(ClusterRef cluster) {
    return intervalMinutes;
  }
}
